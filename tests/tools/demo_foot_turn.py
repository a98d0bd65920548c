#!/usr/bin/env python3
"""How fast the solved feet turn, beyond the animation, in a crowdik_demo
--dump CSV: per foot and frame (weight above 0 in the frame or the one
before), the solved foot's turn (heel to toe) from the last frame less the
animated foot's own, in degrees (tools/demo/measures.py's foot_turns, the
report's "weighted: foot turn beyond the anim. per frame").

  demo_foot_turn.py RUN.csv [P99_MAX] [BIG]

Prints the p99 and the largest; exits 1 when the p99 is above P99_MAX
(default 12) or any foot turns more than BIG (default 20) beyond the
animation in a frame. crowdik 0.20 flicked the CMU jog's feet at push-off
(a heel lift that jumped to 40 degrees in the frame the lock let go and
was gone in the next): p99 23 degrees on flat ground, 1,166 rows over 20.
"""
import collections
import csv
import os
import sys

# the demo's own CSV measures (tools/demo/measures.py)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "demo"))
from measures import foot_turns, p99  # noqa: E402


def main():
    if len(sys.argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    p99_max = float(sys.argv[2]) if len(sys.argv) > 2 else 12.0
    big = float(sys.argv[3]) if len(sys.argv) > 3 else 20.0
    feet = collections.defaultdict(list)
    with open(sys.argv[1], newline="") as f:
        for r in csv.DictReader(f):
            feet[(r["character"], r["side"])].append(r)
    worst, where, v = float("-inf"), None, []
    for k, rs in sorted(feet.items()):
        t = foot_turns(rs)
        v += t
        if t and max(t) > worst:
            worst, where = max(t), k
    if not v:
        print("demo_foot_turn: no weighted foot-frames", file=sys.stderr)
        return 1
    over = sum(1 for x in v if x > big)
    top = p99(v)
    print(f"demo_foot_turn: {len(v)} foot-frames, turn beyond the animation p99 {top:.2f} deg, "
          f"largest {worst:.2f} (character {where[0]} side {where[1]}), {over} over {big:g}")
    if top > p99_max or over:
        print(f"demo_foot_turn: FAIL: p99 above {p99_max:g} or a turn over {big:g} degrees", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
