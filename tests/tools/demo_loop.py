#!/usr/bin/env python3
"""A clip's loop seen in crowdik_demo --dump CSVs: the largest change of an
animated knee's bend (degrees) and of an animated ankle's height under its
hip (mm) from one frame to the next, over every character and foot.

  demo_loop.py RAW.csv BLEND.csv

RAW is a run with --loop raw, BLEND one with --loop blend, of a clip whose
first and last frames are at different gait phases: exits 1 unless the raw
loop shows its seam (a knee bend jump over 25 degrees, which also tells that
the run went through a wrap) and the blended loop changes no knee by more
than 15 degrees nor an ankle by more than 80 mm in a frame (the clips' own
motion: about 10 degrees and 60 mm at 60 Hz).
"""
import collections
import csv
import os
import sys

# the demo's own CSV readers (tools/demo/measures.py)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "demo"))
from measures import bend  # noqa: E402


def largest_changes(path):
    feet = collections.defaultdict(list)
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            feet[(r["character"], r["side"])].append(r)
    knee = ankle = 0.0
    for rows in feet.values():
        for a, b in zip(rows, rows[1:]):
            knee = max(knee, abs(bend(b, "anim") - bend(a, "anim")))
            drop_a = float(a["anim_hip_y"]) - float(a["anim_ankle_y"])
            drop_b = float(b["anim_hip_y"]) - float(b["anim_ankle_y"])
            ankle = max(ankle, 1e3 * abs(drop_b - drop_a))
    return knee, ankle


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    raw, blend = (largest_changes(p) for p in sys.argv[1:])
    print(f"largest change in a frame: raw loop knee {raw[0]:.1f} deg, ankle {raw[1]:.1f} mm; "
          f"blended loop knee {blend[0]:.1f} deg, ankle {blend[1]:.1f} mm")
    bad = []
    if raw[0] <= 25:
        bad.append("the raw loop shows no seam: the run never wrapped, or the clip loops by itself")
    if blend[0] > 15 or blend[1] > 80:
        bad.append("the blended loop jumps")
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
