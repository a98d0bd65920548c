#!/usr/bin/env python3
"""The measures of crowdik_demo's report, recomputed from its --dump CSV.

docs/foot.md ("Measures") defines each; this script follows those words on
the CSV's rows alone (standard library only), so that the figures can be
checked, or computed differently, without the demo's code.

  measures.py DUMP.csv [--still-speed 0.5]          prints the figures
  measures.py DUMP.csv --compare REPORT.txt         checks the demo's report
  measures.py DUMP.csv --classes                    also sorts the knee pops
                                                    and the soles off the
                                                    ground into classes

A herd's CSV (crowdik_demo --creature quadruped|hexapod: a `leg` column)
gets the herd's figures that its rows hold (docs/foot.md, "Herds in the
demo"): feet on and below the ground, locked feet, the body.

--classes (docs/foot.md, "Figures on real motion"): each knee pop by the
foot's state (planted, easing: weight between 0 and 1 and not planted,
swing: weight 0), whether the solved knee turned by more or by less than
the animated one, whether the animation bent or straightened it, and the
other foot's state in the same frame; and each planted row counted in the
sole's figure that is more than 3 degrees beyond the animated sole's own
angle, by the foot's shape (heel up: the heel more than 3 mm higher over
its ground than ball and toe; toe up: the toe 3 mm higher than the heel;
else level) and by reach (a flat foot out of reach: the ankle, at its
animated height above the highest of the three grounds, farther than
0.995 of thigh plus shin from the solved hip; near full reach: from 0.97;
else within reach).

--still-speed is the evaluator's threshold: 0.5 m/s, 1.0 for a run (the
report's measures line says which it used). --compare exits 1 when a figure
of the report differs from the recomputed one by more than the CSV's
rounding (5 decimals) allows.
"""
import argparse
import csv
import math
import re
import sys

POINTS = ("heel", "ball", "toe")
HZ = 60
# a swing foot whose lowest point is this far over its ground is clear of it
CLEAR = 0.002
# frames the swing measure looks ahead for ground that lifts the foot (the
# pipeline's swing_lookahead, 0.1 s, at 60 Hz)
SWING_AHEAD = 6


def rise(r):
    """The highest ground under the solved foot over the animation's floor."""
    return max(float(r[f"ground_{p}_y"]) for p in POINTS) - float(r.get("floor_y", "inf"))


def vec(r, name):
    suffix = ("x", "y", "z") if name.endswith("_n") else ("_x", "_y", "_z")
    return [float(r[name + s]) for s in suffix]


def sub(a, b):
    return [a[i] - b[i] for i in range(3)]


def norm(a):
    return math.sqrt(sum(x * x for x in a))


def angle(a, b):
    la, lb = norm(a), norm(b)
    if la == 0 or lb == 0:
        return 0.0
    return math.degrees(math.acos(max(-1.0, min(1.0, sum(a[i] * b[i] for i in range(3)) / (la * lb)))))


def bend(r, which):
    hip, knee, ankle = (vec(r, f"{which}_{j}") for j in ("hip", "knee", "ankle"))
    return angle(sub(knee, hip), sub(ankle, knee))


def turn(a, b):
    """The angle between two directions, degrees (atan2: exact near 0)."""
    c = [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
    return math.degrees(math.atan2(norm(c), sum(x * y for x, y in zip(a, b))))


def foot_turns(rs):
    """One foot's rows in frame order: per frame with weight above 0 in it or
    the last, the solved foot's turn (heel to toe) from the last frame less
    the animated foot's, degrees."""
    out = []
    for q, r in zip(rs, rs[1:]):
        if float(r["weight"]) > 0 or float(q["weight"]) > 0:
            d = [turn(sub(vec(q, w + "_toe"), vec(q, w + "_heel")), sub(vec(r, w + "_toe"), vec(r, w + "_heel")))
                 for w in ("solved", "anim")]
            out.append(d[0] - d[1])
    return out


def state(r):
    """A foot's state in a row, for --classes."""
    if r["planted"] == "1":
        return "planted"
    return "swing" if not float(r["weight"]) > 0 else "easing"


def sole_class(r):
    """A planted row's foot shape and reach, for --classes."""
    gap = {p: float(r[f"solved_{p}_y"]) - float(r[f"ground_{p}_y"]) for p in POINTS}
    if gap["heel"] > max(gap["ball"], gap["toe"]) + 0.003:
        shape = "heel up"
    elif gap["toe"] > gap["heel"] + 0.003:
        shape = "toe up"
    else:
        shape = "level"
    hip, knee, ankle = (vec(r, "solved_" + j) for j in ("hip", "knee", "ankle"))
    length = norm(sub(knee, hip)) + norm(sub(ankle, knee))
    height = float(r["anim_ankle_y"]) - min(float(r[f"anim_{p}_y"]) for p in POINTS)
    flat = [ankle[0], max(float(r[f"ground_{p}_y"]) for p in POINTS) + height, ankle[2]]
    reach = norm(sub(flat, hip)) / length if length > 0 else 0.0
    where = "a flat foot out of reach" if reach > 0.995 else ("near full reach" if reach > 0.97 else "within reach")
    return shape, where


def p99(values):
    """Nearest rank, as the demo: index round(0.99 (n - 1)); None for none."""
    s = sorted(values)
    return s[int(0.99 * (len(s) - 1) + 0.5)] if s else None


def place(x, z):
    """0 near a step edge, 1 on a ridge flank, 2 elsewhere (procedural terrain)."""
    zm = math.fmod(z + 1600.0, 8.0)
    if zm < 0.15 or zm > 8.0 - 0.15:
        return 0
    xm = math.fmod(x + 2400.0, 24.0)
    return 1 if xm < 4.0 or 8.0 <= xm < 12.0 else 2


def measures(rows, still_speed, flat, classes=None):
    """The report's figures; with `classes` (a dict), also the knee pops'
    and the soles' classes (--classes) in classes["pops"], ["soles"]."""
    feet = {}
    for r in rows:
        feet.setdefault((int(r["character"]), int(r["side"])), []).append(r)
    by_frame = {(r["character"], r["side"], r["frame"]): r for r in rows} if classes is not None else {}
    pop_classes, sole_classes = {}, {}
    m = {k: [] for k in ("err", "pen", "pen0", "pen1", "pen2", "lock", "aslide", "sslide", "drop2", "shin", "sknee",
                         "spen", "tilt", "tiltok", "peel", "fhip", "fknee", "turn")}
    pops = pop_own = pop_jumps = pop_rows = still = still_planted = anim_straight = solved_straight = 0
    for (_, side), rs in sorted(feet.items()):
        slow = [False] * len(rs)
        m["turn"] += foot_turns(rs)
        # the knee's bend in each row, solved and animated
        sb, ab = [bend(r, "solved") for r in rs], [bend(r, "anim") for r in rs]
        for i, r in enumerate(rs):
            pts = [vec(r, "solved_" + p) for p in POINTS]
            gap = [pts[k][1] - float(r[f"ground_{p}_y"]) for k, p in enumerate(POINTS)]
            deepest = max(0.0, -min(gap))
            if r["planted"] == "1":
                m["err"].append(abs(min(gap)))
                m["pen"].append(deepest)
                m["pen%d" % (2 if flat else min(place(p[0], p[2]) for p in pts))].append(deepest)
                own = angle(vec(r, "anim_sole_n"), [0, 1, 0])
                if own < 10:
                    m["tilt"].append(angle(vec(r, "solved_sole_n"), vec(r, "ground_ball_n")))
                    # (a dump without sole_allowed, before 0.14: every row)
                    if r.get("sole_allowed", "1") == "1":
                        m["tiltok"].append(m["tilt"][-1])
                        # less the animated sole's own angle (a peeling heel)
                        m["peel"].append(max(0.0, m["tilt"][-1] - own))
                        if classes is not None and m["peel"][-1] > 3:
                            key = sole_class(r)
                            sole_classes[key] = sole_classes.get(key, 0) + 1
            if not float(r["weight"]) > 0:
                m["shin"].append(angle(sub(vec(r, "anim_knee"), vec(r, "anim_hip")),
                                       sub(vec(r, "solved_knee"), vec(r, "solved_hip"))))
                m["sknee"].append(abs(sb[i] - ab[i]))
                # nothing holds it up, no ground under it is above the
                # animation's floor (swing_lift), in this frame or the next
                # SWING_AHEAD (swing_lookahead lifts it before a step up),
                # and the animated foot is more than twice the pelvis drop
                # above its floor (not landing, so not yet taking the drop
                # into its knee): the change is the pipeline's own (a dump
                # without floor_y, before 0.11: no rise)
                floor = float(r.get("floor_y", "inf"))
                anim_low = min(float(r[f"anim_{p}_y"]) for p in POINTS) - floor
                ahead = [q for q in rs[i:i + SWING_AHEAD + 1]
                         if int(q["frame"]) - int(r["frame"]) <= SWING_AHEAD]
                if min(gap) > CLEAR and all(rise(q) <= CLEAR for q in ahead) and not (
                        math.isfinite(floor) and anim_low <= 2.0 * float(r["pelvis_drop"])):
                    m["fhip"].append(m["shin"][-1])
                    m["fknee"].append(m["sknee"][-1])
                m["spen"].append(deepest)
            if i == 0:
                continue
            q = rs[i - 1]
            moved = min(norm(sub(vec(r, "anim_heel"), vec(q, "anim_heel"))),
                        norm(sub(vec(r, "anim_toe"), vec(q, "anim_toe"))))
            slow[i] = moved * HZ < still_speed
            ds, da = sb[i] - sb[i - 1], ab[i] - ab[i - 1]
            pop_rows += 1
            pop = abs(ds - da) > 5
            # a jump of the animation's own that the solve smooths (as the
            # demo's report): the animated knee turned more than the solved
            # one and its turn changed more from the row before's
            smoothed = i >= 2 and abs(ds) < abs(da) and \
                abs(ds - (sb[i - 1] - sb[i - 2])) < abs(da - (ab[i - 1] - ab[i - 2]))
            pops += pop
            pop_own += pop and not smoothed
            pop_jumps += pop and abs(ds) > abs(da)
            if pop and classes is not None:
                other = by_frame.get((r["character"], str(1 - side), r["frame"]))
                key = (state(r), "solved turned more" if abs(ds) > abs(da) else "solved turned less",
                       "animation straightening" if da < 0 else "animation bending",
                       "other foot " + (state(other) if other else "absent"),
                       "smooths the animation's jump" if smoothed else "the solve's")
                pop_classes[key] = pop_classes.get(key, 0) + 1
            if r["locked"] == "1" and q["locked"] == "1" and r["pivot"] == q["pivot"]:
                p = POINTS[int(r["pivot"])]
                m["lock"].append(norm(sub(vec(r, "solved_" + p), vec(q, "solved_" + p))))
            if side == 0 and i >= 2:
                drops = [float(x["pelvis_drop"]) for x in (rs[i - 2], q, r)]
                m["drop2"].append(abs(drops[2] - 2 * drops[1] + drops[0]))
        i = 0
        while i < len(rs):
            j = i
            while j < len(rs) and slow[j]:
                j += 1
            if j - i >= 4:
                for k in range(i, j):
                    r, q = rs[k], rs[k - 1]
                    still += 1
                    still_planted += r["planted"] == "1"
                    anim_straight += bend(r, "anim") < 8
                    solved_straight += bend(r, "solved") < 8
                    for which, key in (("anim", "aslide"), ("solved", "sslide")):
                        a, b = vec(r, which + "_toe"), vec(q, which + "_toe")
                        m[key].append(math.hypot(a[0] - b[0], a[2] - b[2]))
            i = j if j > i else i + 1
    if classes is not None:
        classes.update(pops=pop_classes, soles=sole_classes, rows=pop_rows, sole_rows=len(m["peel"]))
    # None where a figure has no samples (the report prints "-")
    mm_ = lambda xs: 1e3 * p99(xs) if xs else None
    share = lambda xs, lim: 100.0 * sum(x <= lim for x in xs) / len(xs) if xs else None
    of_still = lambda k: 100.0 * k / still if still else None
    # each figure, its values and what 5-decimal metres allow: 0.05 mm, 0.1
    # degree, 0.3 percentage points, 1 per 1000 (a sample on a threshold may
    # fall either side of it)
    pct, mm, deg, per1000 = 0.3, 0.05, 0.1, 1.0
    return [
        ("still foot-frames planted", [of_still(still_planted)], pct),
        ("planted: lowest point within 1 cm of the ground", [share(m["err"], 0.01)], pct),
        ("planted: lowest point within 2 mm of the ground", [share(m["err"], 0.002)], pct),
        ("planted: a point below the ground, p99 mm", [mm_(m["pen"])], mm),
        ("near a step edge", [mm_(m["pen0"])], mm),
        ("on a slope", [mm_(m["pen1"])], mm),
        ("elsewhere", [mm_(m["pen2"])], mm),
        ("locked: pivot movement per frame, p99 mm", [mm_(m["lock"])], mm),
        ("still: toe slide per frame, p99 mm, anim -> solved", [mm_(m["aslide"]), mm_(m["sslide"])], mm),
        ("knee pops the solve makes (> 5 deg beyond anim.) /1000", [1000.0 * pop_own / pop_rows if pop_rows else None],
         per1000),
        ("with the animation's own jumps that it smooths", [1000.0 * pops / pop_rows if pop_rows else None], per1000),
        ("the solved knee turning faster than the animated one",
         [1000.0 * pop_jumps / pop_rows if pop_rows else None], per1000),
        ("weighted: foot turn beyond the anim. per frame, p99 deg", [p99(m["turn"])], deg),
        ("still: knee straight (< 8 deg), anim -> solved", [of_still(anim_straight), of_still(solved_straight)], pct),
        ("pelvis drop 2nd difference, p99 / max, mm/frame^2",
         [mm_(m["drop2"]), 1e3 * max(m["drop2"]) if m["drop2"] else None], mm),
        ("swing (weight 0): hip / knee off the anim., p99 deg", [p99(m["shin"]), p99(m["sknee"])], deg),
        ("  clear of the ground (nothing forces a change)", [p99(m["fhip"]), p99(m["fknee"])], deg),
        ("swing: a point below the ground, p99 mm", [mm_(m["spen"])], mm),
        ("planted, animated sole flat: sole off normal, p99 deg", [p99(m["tilt"])], deg),
        ("  rows the ankle's limit allows a flat sole, share",
         [100.0 * len(m["tiltok"]) / len(m["tilt"]) if m["tilt"] else None], pct),
        ("  where the ankle's limit allows it", [p99(m["tiltok"])], deg),
        ("    beyond the animated sole's own angle", [p99(m["peel"])], deg),
    ]


def herd_measures(rows, flat):
    """The figures of a herd's report (crowdik_demo --creature; docs/foot.md,
    "Herds in the demo") that its CSV holds: the feet on the ground, below
    it, the locked feet's movement, the body."""
    feet = {}
    for r in rows:
        feet.setdefault((int(r["character"]), int(r["leg"])), []).append(r)
    err, below, lock, pitch, roll, heights = [], [], [], [], [], []
    by_segments, by_place = {}, {}
    for (_, leg), rs in sorted(feet.items()):
        for i, r in enumerate(rs):
            foot = vec(r, "solved_foot")
            gap = foot[1] - float(r["ground_y"])
            below.append(max(0.0, -gap))
            if r["planted"] == "1" and float(r["weight"]) >= 0.999:
                err.append(abs(gap))
                by_segments.setdefault(r["segments"], []).append(abs(gap))
                by_place.setdefault(2 if flat else place(foot[0], foot[2]), []).append(abs(gap))
            if leg == 0:
                pitch.append(abs(math.degrees(float(r["body_pitch"]))))
                roll.append(abs(math.degrees(float(r["body_roll"]))))
                heights.append(float(r["body_height"]))
            if i and r["locked"] == "1" and rs[i - 1]["locked"] == "1":
                lock.append(norm(sub(foot, vec(rs[i - 1], "solved_foot"))))
    share = lambda xs, lim: 100.0 * sum(x <= lim for x in xs) / len(xs) if xs else None
    pmax = lambda xs, scale: [scale * p99(xs), scale * max(xs)] if xs else [None]
    pct, mm, deg = 0.3, 0.05, 0.1
    figures = [("planted: foot within 1 cm of the ground", [share(err, 0.01)], pct)]
    for n in sorted(by_segments):
        figures.append(("%s-segment legs" % n, [share(by_segments[n], 0.01)], pct))
    for k, name in enumerate(("near a step edge", "on a slope", "elsewhere")):
        if k in by_place:
            figures.append((name, [share(by_place[k], 0.01)], pct))
    figures += [
        ("planted: foot within 2 mm of the ground", [share(err, 0.002)], pct),
        ("any foot below the ground, p99 / max mm", pmax(below, 1e3), mm),
        ("locked foot movement per frame, p99 / max mm", pmax(lock, 1e3), mm),
        ("body pitch, p99 / max deg", pmax(pitch, 1.0), deg),
        ("body roll, p99 / max deg", pmax(roll, 1.0), deg),
        ("body height (move from the animation), mm", [1e3 * min(heights), 1e3 * max(heights)], 0.06),
    ]
    return figures


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv")
    ap.add_argument("--still-speed", type=float, default=None, help="m/s (default: the report's, else 0.5)")
    ap.add_argument("--compare", metavar="REPORT", help="the demo's report to check against the CSV")
    ap.add_argument("--classes", action="store_true", help="also the knee pops and the soles off the ground by class")
    a = ap.parse_args()
    report = open(a.compare).read() if a.compare else ""
    speed = a.still_speed
    found = re.search(r"slower than ([0-9.]+) m/s", report)
    if speed is None:
        speed = float(found.group(1)) if found else 0.5
    with open(a.csv, newline="") as fp:
        rows = list(csv.DictReader(fp))
    classes = {} if a.classes else None
    if rows and "leg" in rows[0]:
        figures = herd_measures(rows, all(float(r["ground_y"]) == 0 for r in rows))
        if a.classes:
            print("(--classes: a crowd's CSV only)")
            classes = None
    else:
        flat = all(float(r["ground_ball_y"]) == 0 and float(r["ground_ball_ny"]) == 1 for r in rows)
        figures = measures(rows, speed, flat, classes)
    bad = 0
    for name, values, tol in figures:
        empty = any(v is None for v in values)
        line = "  %-54s %s" % (name, "-" if empty else " / ".join("%.3f" % v for v in values))
        if a.compare:
            got = re.search(r"^ +" + re.escape(name) + r" +(.*?)  ", report, re.M)
            theirs = [float(x) for x in re.findall(r"-?[0-9]+\.[0-9]+", got.group(1))] if got else []
            if empty:
                ok = got is not None and got.group(1).strip() == "-"
            else:
                ok = len(theirs) == len(values) and all(abs(x - y) <= tol for x, y in zip(theirs, values))
            line += "   report: %s%s" % (got.group(1).strip() if got else "missing", "" if ok else "   DIFFERS")
            bad += not ok
        print(line)
    if a.compare:
        print("%d of %d figures differ" % (bad, len(figures)))
    if classes:
        print_classes(classes)
    return 1 if bad else 0


def print_classes(c):
    """--classes: counts and shares, largest first."""
    rows, pops = c["rows"], c["pops"]
    total = sum(pops.values())
    more = sum(n for k, n in pops.items() if k[1] == "solved turned more")
    per = lambda n, of: 1000.0 * n / of if of else 0.0
    own = sum(n for k, n in pops.items() if k[4] == "the solve's")
    print("knee pops: %d in %d rows, %.2f per 1000; the solve's own: %d, %.2f per 1000; "
          "the solved knee turning more: %d, %.2f per 1000"
          % (total, rows, per(total, rows), own, per(own, rows), more, per(more, rows)))
    for k, n in sorted(pops.items(), key=lambda kv: (-kv[1], kv[0])):
        print("  %6.2f %5d  %s" % (per(n, rows), n, ", ".join(k)))
    soles, sole_rows = c["soles"], c["sole_rows"]
    print("soles more than 3 deg beyond the animated sole's own angle: %d of %d rows"
          % (sum(soles.values()), sole_rows))
    for k, n in sorted(soles.items(), key=lambda kv: (-kv[1], kv[0])):
        print("  %5d  %s" % (n, ", ".join(k)))


if __name__ == "__main__":
    sys.exit(main())
