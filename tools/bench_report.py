#!/usr/bin/env python3
"""Turns crowdik_bench's JSON output into a markdown report and an SVG plot.

    crowdik_bench --benchmark_out=bench.json --benchmark_out_format=json
    python3 tools/bench_report.py bench.json \\
        --markdown docs/performance.md --svg docs/performance.svg

The markdown has the headline table (one workload, one thread, one batch
size: every solver's ns per chain and its speed-ups), the thread scaling,
and per workload the ns per chain of every solver at every batch size with
the speed-ups over the reference and the textbook baseline. The SVG plots,
per workload, the speed-up over the reference solver and over the textbook
baseline against batch size, one line per backend (solid: one thread,
dashed: all threads). Both name the machine the run came from: the CPU model
the benchmark recorded in its context (cpu_model), else the host name, or
--machine.

Several JSON files may be given (their runs are merged); when a benchmark
ran more than once (--benchmark_repetitions), the fastest run counts.
Standard library only. Exit status: 0 done, 2 a bad option or an input
that cannot be read or holds no crowdik_bench results, 3 an output that
cannot be written (the same codes in every crowdik tool).
"""

import argparse
import json
import math
import os
import sys
from collections import OrderedDict

SOLVER_ORDER = ["textbook", "textbook-no-dead-zone", "reference", "scalar", "sse4.1", "avx2", "avx512", "neon",
                "reference-plain", "scalar-plain", "sse4.1-plain", "avx2-plain", "avx512-plain", "neon-plain"]


def family(solver, base):
    """The base solver of the same options family: "scalar" for "avx512",
    "scalar-plain" for "avx512-plain"."""
    return base + "-plain" if solver.endswith("-plain") else base
WORKLOAD_ORDER = ["legs", "legs-no-limits", "spine", "tail"]
COLORS = {
    "reference": "#7f7f7f",
    "scalar": "#1f77b4",
    "sse4.1": "#2ca02c",
    "avx2": "#ff7f0e",
    "avx512": "#d62728",
    "neon": "#9467bd",
    "textbook": "#000000",
    "textbook-no-dead-zone": "#8c564b",
}
TEXTBOOK = ("textbook", "textbook-no-dead-zone")
# The engine baselines (bench/bench_peers.c): one chain at a time, one thread.
PEERS = ("threejs", "godot", "two-bone")
PEER_LABELS = {"threejs": "three.js CCDIKSolver", "godot": "Godot CCDIK", "two-bone": "ozz IKTwoBoneJob"}


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                epilog="Exit status: 0 done, 2 a bad option or an input that cannot be read or "
                                       "holds no crowdik_bench results, 3 an output that cannot be written. The "
                                       "same codes in every crowdik tool.")
    p.add_argument("json", nargs="+", help="crowdik_bench JSON output file(s)")
    p.add_argument("--markdown", "-m", help="write the markdown report here (default: stdout)")
    p.add_argument("--svg", "-s", help="write the SVG plot here")
    p.add_argument("--machine", help="the machine's name for the titles (default: from the JSON context)")
    p.add_argument("--workload", default="legs", help="workload of the headline table (default legs)")
    p.add_argument("--chains", type=int, default=16384, help="batch size of the headline table (default 16384)")
    p.add_argument("--clock", choices=["wall", "cpu"], default="wall",
                   help="time for the speed-ups of single-threaded runs: wall clock (default) or the "
                        "calling thread's CPU time where the run recorded it (cpu_ns_per_chain)")
    p.add_argument("--command", help="the command line that produced the JSON, quoted in the report")
    p.add_argument("--note", action="append", default=[], help="a remark added to the report's header (repeatable)")
    return p.parse_args(argv)


class Run:
    """One benchmark result: workload, solver, chains, threads and counters."""

    def __init__(self, bench):
        parts = bench["run_name"].split("/") if "run_name" in bench else bench["name"].split("/")
        self.workload, self.solver = parts[0], parts[1]
        fields = {}
        for part in parts[2:]:
            if ":" in part:
                k, v = part.split(":", 1)
                fields[k] = v
        self.chains = int(fields.get("chains", 0))
        self.threads = int(fields.get("threads", 1))
        self.ns = float(bench.get("ns_per_chain", 0.0))
        self.cpu_ns = float(bench["cpu_ns_per_chain"]) if "cpu_ns_per_chain" in bench else None
        self.chains_per_s = float(bench.get("chains_per_s", 0.0))
        self.steps_per_s = float(bench.get("joint_steps_per_s", 0.0))
        self.passes = float(bench.get("mean_passes", 0.0))
        self.converged = float(bench.get("converged", 0.0))
        self.iterations = int(bench.get("iterations", 0))
        self.error = bench.get("error_occurred", False)

    def key(self):
        return (self.workload, self.solver, self.chains, self.threads)

    def time(self, clock):
        if clock == "cpu" and self.cpu_ns is not None:
            return self.cpu_ns
        return self.ns


# The foot frame's level-of-detail patterns (bench/bench_foot.c).
LOD_LABELS = {0: "all", 1: "every 10th", 2: "first 10th"}


class FootRun:
    """One foot-placement frame result (foot/frame/characters:N/threads:T, or
    foot/frame_lod/characters:N/threads:T/lod:P with a tenth of the
    characters on)."""

    STAGES = ("probe", "ground", "place", "solve", "align")

    def __init__(self, bench):
        parts = (bench.get("run_name") or bench["name"]).split("/")
        fields = dict(p.split(":", 1) for p in parts[2:] if ":" in p)
        self.characters = int(fields.get("characters", 0))
        self.threads = int(fields.get("threads", 1))
        self.lod = int(fields.get("lod", 0))
        # foot/frame_spawn: the frame with one character's legs set before it
        self.spawn = len(parts) > 1 and parts[1] == "frame_spawn"
        self.ms = float(bench.get("frame_ms", 0.0))
        self.ns_per_char = float(bench.get("ns_per_char", 0.0))
        self.chars_per_s = float(bench.get("chars_per_s", 0.0))
        self.stages = {s: float(bench.get(s + "_ms", 0.0)) for s in self.STAGES}
        self.solve_share = float(bench.get("solve_share", 0.0))

    def key(self):
        return (self.characters, self.threads, self.lod, self.spawn)

    def label(self):
        on = LOD_LABELS.get(self.lod, "lod %d" % self.lod)
        return on + ", one spawned a frame" if self.spawn else on


def foot_markdown(foot, context):
    out = ["## Foot placement frame", "",
           "`cik_foot_crowd_frame` on a walking crowd (bench/foot_scene.h): ms per frame (wall clock, the "
           "fastest run), and the median of each stage timed on its own (ms).", "",
           "| characters | on | threads | frame ms | ns/character | characters/s | probe | ground | place | solve | "
           "align | solve share |",
           "|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for key in sorted(foot, key=lambda k: (k[0], k[2], k[3], k[1] == 0, k[1])):
        f = foot[key]
        out.append("| %d | %s | %s | %.3f | %.0f | %.3g M | %s | %.1f %% |" % (
            f.characters, f.label(), threads_label(f.threads, context), f.ms,
            f.ns_per_char, f.chars_per_s / 1e6,
            " | ".join("%.3f" % f.stages[s] for s in FootRun.STAGES), 100.0 * f.solve_share))
    out.append("")
    return "\n".join(out) + "\n"


CREATURES = {0: "biped", 1: "quadruped", 2: "hexapod"}


class HerdRun:
    """One herd frame result (herd/frame/creature:K/characters:N/threads:T, or
    herd/frame_lod/creature:K/characters:N/threads:T/lod:P with a tenth of
    the characters on)."""

    def __init__(self, bench):
        parts = (bench.get("run_name") or bench["name"]).split("/")
        fields = dict(p.split(":", 1) for p in parts[2:] if ":" in p)
        self.creature = int(fields.get("creature", 0))
        self.characters = int(fields.get("characters", 0))
        self.threads = int(fields.get("threads", 1))
        self.lod = int(fields.get("lod", 0))
        self.ms = float(bench.get("frame_ms", 0.0))
        self.cpu_ms = float(bench["cpu_frame_ms"]) if "cpu_frame_ms" in bench else None
        self.ns_per_leg = float(bench.get("ns_per_leg", 0.0))
        self.passes = float(bench.get("mean_passes", 0.0))
        self.converged = float(bench.get("converged", 0.0))

    def key(self):
        return (self.creature, self.characters, self.threads, self.lod)


def herd_markdown(herd, context):
    out = ["## Herd frame", "",
           "`cik_herd_frame` on a walking herd over rolling ground (bench/bench_herd.c): ms per frame (wall "
           "clock, the fastest run; thread CPU time with one thread).", "",
           "| creature | characters | on | threads | frame ms | thread CPU ms | ns/leg | mean passes | converged |",
           "|---|---:|---|---|---:|---:|---:|---:|---:|"]
    for key in sorted(herd, key=lambda k: (k[0], k[1], k[3], k[2] == 0, k[2])):
        h = herd[key]
        out.append("| %s | %d | %s | %s | %.3f | %s | %.0f | %.2f | %.1f %% |" % (
            CREATURES.get(h.creature, str(h.creature)), h.characters, LOD_LABELS.get(h.lod, "lod %d" % h.lod),
            threads_label(h.threads, context), h.ms,
            "%.3f" % h.cpu_ms if h.cpu_ms is not None else "", h.ns_per_leg, h.passes, 100.0 * h.converged))
    out.append("")
    return "\n".join(out) + "\n"


class InputError(Exception):
    """A JSON file that cannot be read or is not crowdik_bench output."""


def read_run(cls, b, path, name):
    """One benchmark entry as a Run or FootRun; InputError where it is malformed."""
    try:
        return cls(b)
    except (AttributeError, IndexError, KeyError, TypeError, ValueError) as e:
        raise InputError("%s: unreadable benchmark %r: %s" % (path, name, e))


def load(paths):
    runs, foot, herd, context = OrderedDict(), OrderedDict(), OrderedDict(), None
    for path in paths:
        try:
            with open(path) as f:
                data = json.load(f)
        except OSError as e:
            raise InputError("cannot read %s: %s" % (path, e.strerror or e))
        except ValueError as e:
            raise InputError("%s is not JSON: %s" % (path, e))
        if not isinstance(data, dict) or not isinstance(data.get("benchmarks", []), list):
            raise InputError("%s is not crowdik_bench JSON output (no benchmarks list)" % path)
        if context is None:
            context = data.get("context", {})
        for b in data.get("benchmarks", []):
            if b.get("run_type", "iteration") != "iteration" or b.get("error_occurred"):
                continue
            name = b.get("run_name", b.get("name", ""))
            if name.count("/") < 3:
                continue
            if name.startswith("foot/"):
                f = read_run(FootRun, b, path, name)
                old = foot.get(f.key())
                if old is None or (f.ms > 0 and f.ms < old.ms):
                    foot[f.key()] = f
                continue
            if name.startswith("herd/"):
                h = read_run(HerdRun, b, path, name)
                old = herd.get(h.key())
                if old is None or (h.ms > 0 and h.ms < old.ms):
                    herd[h.key()] = h
                continue
            r = read_run(Run, b, path, name)
            old = runs.get(r.key())
            if old is None or (r.ns > 0 and r.ns < old.ns):
                if old is not None and old.cpu_ns is not None and r.cpu_ns is not None:
                    r.cpu_ns = min(r.cpu_ns, old.cpu_ns)
                runs[r.key()] = r
            elif old.cpu_ns is not None and r.cpu_ns is not None:
                old.cpu_ns = min(old.cpu_ns, r.cpu_ns)
    return runs, foot, herd, context or {}


def machine_name(context, override):
    if override:
        return override
    model = context.get("cpu_model", "").strip()
    host = context.get("host_name", "").strip()
    cpus = context.get("num_cpus")
    mhz = context.get("mhz_per_cpu")
    name = model or host or "unknown machine"
    extra = []
    if cpus:
        extra.append("%s CPUs" % cpus)
    if mhz:
        extra.append("%s MHz" % mhz)
    if model and host:
        extra.append("host %s" % host)
    return name + (" (" + ", ".join(extra) + ")" if extra else "")


def ordered(values, order):
    known = [v for v in order if v in values]
    return known + sorted(v for v in values if v not in order)


def fmt_fixed(v, most_decimals, suffix=""):
    """About three significant digits: fewer decimals as v grows, at most
    most_decimals below 0.1."""
    for limit, decimals in ((100, 0), (10, 1), (0.1, 2)):
        if v >= limit:
            return "%.*f%s" % (decimals, v, suffix)
    return "%.*f%s" % (most_decimals, v, suffix)


def fmt_ns(v):
    return "-" if v is None else fmt_fixed(v, 2)


def fmt_x(v):
    return "-" if v is None or v <= 0 else fmt_fixed(v, 3, "x")


def threads_label(t, context):
    if t == 0:
        n = context.get("online_cpus") or context.get("num_cpus")
        return "all (%s)" % n if n else "all"
    return str(t)


def speedup(runs, clock, workload, solver, chains, threads, base_solver, base_threads):
    r = runs.get((workload, solver, chains, threads))
    b = runs.get((workload, base_solver, chains, base_threads))
    if not r or not b:
        return None
    # both single-threaded: the chosen clock; else wall clock for both
    c = clock if threads == 1 and base_threads == 1 else "wall"
    tr, tb = r.time(c), b.time(c)
    if c == "cpu" and (r.cpu_ns is None or b.cpu_ns is None):
        tr, tb = r.ns, b.ns
    return tb / tr if tr > 0 else None


def peers_markdown(runs, args, workloads, solvers):
    """The engine baselines beside crowdik's best backend (defaults and
    plain CCD) and the textbook, per workload, one thread, at the largest
    batch size every one of them ran."""
    out = []
    best = [s for s in ("avx512", "avx2", "sse4.1", "neon", "scalar") if s in solvers]
    if not best or not any(k[1] in PEERS for k in runs):
        return out
    b = best[0]
    rows = [b, b + "-plain", "textbook", "textbook-no-dead-zone"] + list(PEERS)
    out.append("## Engine baselines")
    out.append("")
    out.append("What users would otherwise call (bench/bench_peers.c), one chain at a time, beside crowdik's %s "
               "kernel with its defaults and as plain CCD, one thread. x %s: %s's chains per second over the "
               "row's (%s clock); converged: error under 1 mm by forward kinematics." % (b, b, b, args.clock))
    out.append("")
    out.append("| workload | chains | solver | converged | mean passes | ns/chain | x %s |" % b)
    out.append("|---|---:|---|---:|---:|---:|---:|")
    for wl in workloads:
        have = [s for s in rows if any(k[0] == wl and k[1] == s and k[3] == 1 for k in runs)]
        if not any(s in PEERS for s in have):
            continue
        common = sorted({k[2] for k in runs if k[0] == wl and k[1] in PEERS and k[3] == 1})
        n = common[-1]
        for s in have:
            r = runs.get((wl, s, n, 1))
            if not r:
                continue
            x = speedup(runs, args.clock, wl, b, n, 1, s, 1)
            out.append("| %s | %d | %s | %.1f %% | %.2f | %s | %s |" % (
                wl, n, PEER_LABELS.get(s, s), 100.0 * r.converged, r.passes, fmt_ns(r.time(args.clock)),
                fmt_x(x) if s != b else "1x"))
    out.append("")
    return out


def markdown(runs, context, args):
    out = []
    machine = machine_name(context, args.machine)
    workloads = ordered({k[0] for k in runs}, WORKLOAD_ORDER)
    solvers = ordered({k[1] for k in runs}, SOLVER_ORDER)
    kernels = [s for s in solvers if s not in TEXTBOOK and s not in PEERS and s not in ("reference", "reference-plain")]
    sizes = sorted({k[2] for k in runs})
    out.append("# crowdik performance")
    out.append("")
    out.append("Generated by `tools/bench_report.py` from one run of `crowdik_bench`; do not edit by hand.")
    out.append("")
    out.append("- Machine: **%s**" % machine)
    if context.get("date"):
        out.append("- Run: %s" % context["date"])
    if args.command:
        out.append("- Command: `%s`" % args.command)
    for key, label in (("crowdik_version", "crowdik"), ("crowdik_backends", "Backends on this CPU"),
                       ("solver_options", "Solver options"), ("compiler", "Compiler"),
                       ("omp_num_threads", "OMP_NUM_THREADS")):
        if context.get(key):
            out.append("- %s: %s" % (label, context[key]))
    if context.get("load_avg"):
        out.append("- Load average when the run started: %s" % ", ".join("%.2f" % x for x in context["load_avg"]))
    out.append("- Times are per chain per solve (10 passes at most, 1 mm threshold), every solve from the same "
               "start pose. Speed-ups of single-threaded runs use the %s; runs on all threads use the wall clock."
               % ("wall clock" if args.clock == "wall" else
                  "calling thread's CPU time where recorded (`cpu_ns_per_chain`, large batches), else the wall clock"))
    for note in args.note:
        out.append("- %s" % note)
    out.append("")

    # headline
    w, n = args.workload, args.chains
    out.append("## Headline: %s, %d chains, one thread" % (w, n))
    out.append("")
    out.append("| solver | ns/chain (wall) | ns/chain (thread CPU) | chains/s | joint steps/s | x textbook | "
               "x textbook, no dead zone | x reference | x scalar | mean passes | converged |")
    out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for s in solvers:
        r = runs.get((w, s, n, 1))
        if not r:
            continue
        out.append("| %s | %s | %s | %.3g M | %.3g M | %s | %s | %s | %s | %.2f | %.1f %% |" % (
            s, fmt_ns(r.ns), fmt_ns(r.cpu_ns), r.chains_per_s / 1e6, r.steps_per_s / 1e6,
            fmt_x(speedup(runs, args.clock, w, s, n, 1, "textbook", 1)),
            fmt_x(speedup(runs, args.clock, w, s, n, 1, "textbook-no-dead-zone", 1)),
            fmt_x(speedup(runs, args.clock, w, s, n, 1, family(s, "reference"), 1)),
            fmt_x(speedup(runs, args.clock, w, s, n, 1, family(s, "scalar"), 1)) if s in kernels else "-",
            r.passes, 100.0 * r.converged))
    out.append("")

    # threads
    if any(k[3] == 0 for k in runs):
        out.append("## Threads: all threads over one thread (wall clock), %s" % w)
        out.append("")
        big = [z for z in sizes if z >= 16]
        out.append("| solver | " + " | ".join("%d" % z for z in big) + " |")
        out.append("|---|" + "---:|" * len(big))
        for s in solvers:
            if s in TEXTBOOK or s.endswith("-plain"):
                continue
            cells = []
            for z in big:
                one, allt = runs.get((w, s, z, 1)), runs.get((w, s, z, 0))
                cells.append(fmt_x(one.ns / allt.ns) if one and allt and allt.ns > 0 else "-")
            out.append("| %s | %s |" % (s, " | ".join(cells)))
        out.append("")

    # per workload
    for wl in workloads:
        out.append("## %s" % wl)
        out.append("")
        out.append("ns per chain (wall clock) by batch size; x textbook / x reference: speed-up over the textbook "
                   "baseline (one thread) and over the reference solver (same threads).")
        out.append("")
        out.append("| solver | threads | " + " | ".join("%d" % z for z in sizes) +
                   " | x textbook @%d | x reference @%d | mean passes | converged |" % (sizes[-1], sizes[-1]))
        out.append("|---|---|" + "---:|" * len(sizes) + "---:|---:|---:|---:|")
        for s in solvers:
            for t in sorted({k[3] for k in runs if k[0] == wl and k[1] == s}, key=lambda t: (t == 0, t)):
                cells = [fmt_ns(runs[(wl, s, z, t)].ns) if (wl, s, z, t) in runs else "-" for z in sizes]
                last = runs.get((wl, s, sizes[-1], t))
                xt = speedup(runs, args.clock, wl, s, sizes[-1], t, "textbook", 1)
                xr = speedup(runs, args.clock, wl, s, sizes[-1], t, family(s, "reference"), t)
                out.append("| %s | %s | %s | %s | %s | %s | %s |" % (
                    s, threads_label(t, context), " | ".join(cells), fmt_x(xt) if s not in TEXTBOOK else "-",
                    fmt_x(xr) if s not in ("reference", "reference-plain") else "-",
                    "%.2f" % last.passes if last else "-", "%.1f %%" % (100 * last.converged) if last else "-"))
        out.append("")
    out.extend(peers_markdown(runs, args, workloads, solvers))
    if kernels:
        out.append("SIMD efficiency (one thread, %s, %s): " % (w, args.clock) + ", ".join(
            "%s %s" % (k, fmt_x(speedup(runs, args.clock, w, k, n, 1, family(k, "scalar"), 1)))
            for k in kernels if k not in ("scalar", "scalar-plain"))
            + " the chains per second of the scalar (1-lane) kernel at %d chains." % n)
        out.append("")
    return "\n".join(out) + "\n"


# ---- SVG ------------------------------------------------------------------

def esc(s):
    return str(s).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def nice_ticks(lo, hi):
    ticks = []
    e = math.floor(math.log10(lo))
    while 10 ** e <= hi * 1.0001:
        for m in (1, 2, 5):
            v = m * 10 ** e
            if lo * 0.9999 <= v <= hi * 1.0001:
                ticks.append(v)
        e += 1
    return ticks


def fmt_tick(v):
    if v >= 1:
        return "%g" % v
    return ("%.3f" % v).rstrip("0")


def panel(svg, x0, y0, w, h, title, series, sizes):
    """series: list of (label, color, dashed, [(size, speedup)])."""
    ml, mr, mt, mb = 52, 12, 26, 38
    pw, ph = w - ml - mr, h - mt - mb
    values = [v for _, _, _, pts in series for _, v in pts if v and v > 0]
    if not values:
        return
    lo, hi = min(values + [1.0]), max(values + [1.0])
    lo = 10 ** (math.floor(math.log10(min(values + [1.0])) * 2) / 2)
    hi = 10 ** (math.ceil(math.log10(hi) * 2) / 2)
    if hi <= lo:
        hi = lo * 10
    xs = [math.log2(z) for z in sizes]
    xlo, xhi = min(xs), max(xs)
    if xhi == xlo:
        xhi = xlo + 1

    def px(z):
        return x0 + ml + (math.log2(z) - xlo) / (xhi - xlo) * pw

    def py(v):
        return y0 + mt + ph - (math.log10(v) - math.log10(lo)) / (math.log10(hi) - math.log10(lo)) * ph

    svg.append('<text x="%.1f" y="%.1f" font-size="13" font-weight="bold" text-anchor="middle">%s</text>'
               % (x0 + ml + pw / 2, y0 + 16, esc(title)))
    svg.append('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="none" stroke="#444"/>'
               % (x0 + ml, y0 + mt, pw, ph))
    for t in nice_ticks(lo, hi):
        y = py(t)
        svg.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="%s"/>'
                   % (x0 + ml, y, x0 + ml + pw, y, "#999" if t == 1 else "#e4e4e4", "1.2" if t == 1 else "1"))
        svg.append('<text x="%.1f" y="%.1f" font-size="10" text-anchor="end">%s</text>'
                   % (x0 + ml - 4, y + 3, fmt_tick(t)))
    for z in sizes:
        x = px(z)
        svg.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#e4e4e4"/>' % (x, y0 + mt, x, y0 + mt + ph))
        svg.append('<text x="%.1f" y="%.1f" font-size="10" text-anchor="middle">%d</text>' % (x, y0 + mt + ph + 13, z))
    svg.append('<text x="%.1f" y="%.1f" font-size="10" text-anchor="middle">chains per batch</text>'
               % (x0 + ml + pw / 2, y0 + mt + ph + 28))
    svg.append('<text x="%.1f" y="%.1f" font-size="10" text-anchor="middle" transform="rotate(-90 %.1f %.1f)">'
               'speed-up (log)</text>' % (x0 + 12, y0 + mt + ph / 2, x0 + 12, y0 + mt + ph / 2))
    for label, color, dashed, pts in series:
        pts = [(z, v) for z, v in pts if v and v > 0]
        if not pts:
            continue
        d = " ".join("%s%.1f,%.1f" % ("M" if i == 0 else "L", px(z), py(v)) for i, (z, v) in enumerate(pts))
        svg.append('<path d="%s" fill="none" stroke="%s" stroke-width="2"%s/>'
                   % (d, color, ' stroke-dasharray="5,3"' if dashed else ""))
        for z, v in pts:
            svg.append('<circle cx="%.1f" cy="%.1f" r="2.5" fill="%s"><title>%s %d: %.2fx</title></circle>'
                       % (px(z), py(v), color, esc(label), z, v))


def svg_plot(runs, context, args):
    machine = machine_name(context, args.machine)
    workloads = ordered({k[0] for k in runs}, WORKLOAD_ORDER)
    solvers = ordered({k[1] for k in runs}, SOLVER_ORDER)
    # the plot shows the default options; the plain CCD runs are in the tables
    kernels = [s for s in solvers if s not in TEXTBOOK and s not in PEERS and not s.endswith("-plain")]
    sizes = sorted({k[2] for k in runs})
    has_all = any(k[3] == 0 for k in runs)
    pw, ph = 440, 250
    width, top = 2 * pw + 20, 58
    height = top + ph * len(workloads) + 40
    svg = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" '
           'font-family="sans-serif">' % (width, height, width, height),
           '<rect width="100%" height="100%" fill="white"/>',
           '<text x="%d" y="20" font-size="15" font-weight="bold" text-anchor="middle">crowdik CCD speed-up '
           'against batch size</text>' % (width / 2),
           '<text x="%d" y="38" font-size="11" text-anchor="middle">%s</text>' % (width / 2, esc(machine)),
           '<text x="%d" y="52" font-size="10" text-anchor="middle" fill="#555">solid: one thread; dashed: all '
           'threads (over the reference on as many threads; over the textbook baseline on one)</text>'
           % (width / 2)]
    for row, wl in enumerate(workloads):
        y0 = top + row * ph
        for col, (base, base_label) in enumerate((("reference", "reference solver"), ("textbook", "textbook CCD"))):
            series = []
            for s in kernels:
                if s == base:
                    continue
                for t in ([1, 0] if has_all else [1]):
                    bt = t if base == "reference" else 1
                    pts = [(z, speedup(runs, args.clock, wl, s, z, t, base, bt)) for z in sizes]
                    if any(v for _, v in pts):
                        series.append(("%s, %s thread(s)" % (s, threads_label(t, context)),
                                       COLORS.get(s, "#17becf"), t == 0, pts))
            panel(svg, 10 + col * pw, y0, pw, ph, "%s: over the %s" % (wl, base_label), series, sizes)
    # legend
    x, y = 20, height - 14
    for s in kernels:
        svg.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="3"/>'
                   % (x, y - 4, x + 22, y - 4, COLORS.get(s, "#17becf")))
        svg.append('<text x="%d" y="%d" font-size="11">%s</text>' % (x + 26, y, esc(s)))
        x += 40 + 8 * len(s)
    svg.append("</svg>")
    return "\n".join(svg) + "\n"


def main(argv):
    args = parse_args(argv)
    try:
        runs, foot, herd, context = load(args.json)
    except InputError as e:
        print("bench_report: %s" % e, file=sys.stderr)
        return 2
    if not runs and not foot and not herd:
        print("bench_report: no crowdik_bench results in %s" % ", ".join(args.json), file=sys.stderr)
        return 2
    md = markdown(runs, context, args) if runs else "# crowdik performance\n\n"
    if foot:
        md += "\n" + foot_markdown(foot, context)
    if herd:
        md += "\n" + herd_markdown(herd, context)
    try:
        if args.svg and runs:
            with open(args.svg, "w") as f:
                f.write(svg_plot(runs, context, args))
            where = os.path.dirname(os.path.abspath(args.markdown)) if args.markdown else os.getcwd()
            md += "\n![speed-up against batch size](%s)\n" % os.path.relpath(os.path.abspath(args.svg), where)
        if args.markdown:
            with open(args.markdown, "w") as f:
                f.write(md)
        else:
            sys.stdout.write(md)
    except OSError as e:
        print("bench_report: cannot write %s: %s" % (e.filename or "the output", e.strerror or e), file=sys.stderr)
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
