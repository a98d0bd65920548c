#!/usr/bin/env python3
"""How fast the solved feet turn, beyond the animation, in a crowdik_demo
--dump CSV: per foot and frame (weight above 0 in the frame or the one
before), the angle between the solved foot's heel-to-toe directions of the
two frames less the animated foot's own (degrees).

  demo_foot_turn.py RUN.csv [P99_MAX] [BIG]

Prints the p99 and the largest; exits 1 when the p99 is above P99_MAX
(default 12) or any foot turns more than BIG (default 20) beyond the
animation in a frame. crowdik 0.20 flicked the CMU jog's feet at push-off
(a heel lift that jumped to 40 degrees in the frame the lock let go and
was gone in the next): p99 23 degrees on flat ground, 1,166 rows over 20.
"""
import collections
import csv
import math
import sys


def direction(r, who):
    d = [float(r[f"{who}_toe_{a}"]) - float(r[f"{who}_heel_{a}"]) for a in "xyz"]
    n = math.sqrt(sum(x * x for x in d))
    return [x / n for x in d] if n > 0 else None


def angle(a, b):
    return math.degrees(math.acos(max(-1.0, min(1.0, sum(x * y for x, y in zip(a, b))))))


def turns(path):
    last = {}
    out = []
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            k = (r["character"], r["side"])
            cur = (direction(r, "anim"), direction(r, "solved"), float(r["weight"]))
            p = last.get(k)
            last[k] = cur
            if p is None or None in cur[:2] or None in p[:2] or (cur[2] <= 0 and p[2] <= 0):
                continue
            out.append((angle(p[1], cur[1]) - angle(p[0], cur[0]), k, r["frame"]))
    return out


def main():
    if len(sys.argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    p99_max = float(sys.argv[2]) if len(sys.argv) > 2 else 12.0
    big = float(sys.argv[3]) if len(sys.argv) > 3 else 20.0
    t = turns(sys.argv[1])
    if not t:
        print("demo_foot_turn: no weighted foot-frames", file=sys.stderr)
        return 1
    v = sorted(x[0] for x in t)
    p99 = v[min(len(v) - 1, int(0.99 * len(v)))]
    worst = max(t)
    over = sum(1 for x in v if x > big)
    print(f"demo_foot_turn: {len(v)} foot-frames, turn beyond the animation p99 {p99:.2f} deg, "
          f"largest {worst[0]:.2f} (character {worst[1][0]} side {worst[1][1]} frame {worst[2]}), "
          f"{over} over {big:g}")
    if p99 > p99_max or over:
        print(f"demo_foot_turn: FAIL: p99 above {p99_max:g} or a turn over {big:g} degrees", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
