#!/usr/bin/env python3
"""The dynamic instruction mix of a callgrind profile (docs/roofline.md).

Reads a profile written with `valgrind --tool=callgrind --dump-instr=yes`
and the binary it profiled, disassembles the binary with objdump, and sums
the executed instructions by class: vector FMA, other vector arithmetic,
vector compares and blends, vector moves (register copies, to and from
the stack: the group's pose kept there shows here, other loads and stores), scalar
(integer, address, branch) and the rest.

    roofline_mix.py callgrind.out BINARY [--functions]

With --functions (a binary built with -g) it also splits the instructions
by the kernel function they come from, inlined ones included (addr2line -i):
each goes to the innermost function of REGIONS on its inline stack, as
crowdik_flops_W splits the flops.
"""
import re
import subprocess
import sys
from collections import Counter


def executed(profile):
    """Self cost (instructions executed) per instruction address."""
    costs = Counter()
    addr = 0
    skip_next = False
    with open(profile) as f:
        for line in f:
            if line.startswith("calls="):
                skip_next = True  # the next cost line is the call's inclusive cost
                continue
            c = line[0]
            if not (c == "0" or c in "+-*"):
                continue
            parts = line.split()
            a = parts[0]
            if a.startswith("0x"):
                addr = int(a, 16)
            elif a.startswith("+"):
                addr += int(a[1:], 16) if a[1:].startswith("0x") else int(a[1:])
            elif a.startswith("-"):
                addr -= int(a[1:], 16) if a[1:].startswith("0x") else int(a[1:])
            if skip_next:
                skip_next = False
                continue
            if len(parts) >= 3:
                costs[addr] += int(parts[2])
    return costs


def mnemonics(binary):
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", binary], capture_output=True, text=True,
                         check=True).stdout
    table = {}
    for line in out.splitlines():
        m = re.match(r"\s*([0-9a-f]+):\s+(\S+)\s*(.*)", line)
        if m:
            table[int(m.group(1), 16)] = (m.group(2), m.group(3))
    return table


REGIONS = [
    ("forward_from", "forward_from (forward kinematics)"),
    ("ccd_apply_limit", "apply_limit + limit_clamp (joint limits)"),
    ("limit_clamp", "apply_limit + limit_clamp (joint limits)"),
    ("clamp_about_axis", "apply_limit + limit_clamp (joint limits)"),
    ("rotate_joint", "rotate_joint (local rotation, normalise)"),
    ("circle_rotation", "circle_rotation + half_angle_pair (limb hinge solve)"),
    ("half_angle_pair", "circle_rotation + half_angle_pair (limb hinge solve)"),
    ("hinge_pair", "hinge_pair"),
    ("limb_step", "limb_step (limb primitive: share, pole)"),
    ("step", "step (CCD step: arc, cap)"),
    ("unstick", "unstick"),
    ("dls_step", "dls_step"),
    ("solve_group", "solve_group (loads, validation, convergence, stores)"),
    ("regroup_run", "regroup (copies)"),
    ("regroup_solve", "regroup (copies)"),
]


def functions_of(binary, addresses):
    """The region of each address, from addr2line's inline stacks."""
    text = "\n".join("%x" % a for a in addresses) + "\n"
    out = subprocess.run(["addr2line", "-e", binary, "-f", "-i", "-a"], input=text, capture_output=True,
                         text=True, check=True).stdout.splitlines()
    names = dict(REGIONS)
    region = {}
    cur, stack = None, []

    def close():
        if cur is not None:
            region[cur] = next((names[f] for f in stack if f in names), "other (solve.c, libc)")

    for line in out:
        if line.startswith("0x"):
            close()
            cur, stack = int(line, 16), []
        elif not re.match(r".*:(\d+|\?)( \(discriminator \d+\))?$", line):
            stack.append(line.strip())
    close()
    return region


def classify(op, args):
    vec = "mm" in args  # xmm, ymm, zmm operands
    if op.startswith("v") or vec:
        base = op[1:] if op.startswith("v") else op
        if re.match(r"f(n)?m(add|sub)", base):
            return "vector FMA"
        if re.match(r"mov", base):
            if "(%rsp" in args or "(%rbp" in args:
                return "vector move to/from the stack"
            if "(" in args:
                return "vector load/store (batch, constants)"
            return "vector move register to register"
        if re.match(r"(broadcast|extract|insert|perm|shuf|unpck|pbroadcast)", base):
            return "vector shuffle/broadcast"
        if re.match(r"(cmp|blend|pblend|and|or|xor|andn|ptest|test|kmov|kor|kand)", base) or \
                re.match(r"(k)", op):
            return "vector compare/blend/mask"
        if re.match(r"(add|sub|mul|div|sqrt|rsqrt|min|max|rcp|round|cvt)", base):
            return "vector arithmetic (not FMA)"
        return "vector other"
    if op.startswith("j") or op in ("call", "ret", "cmp", "test"):
        return "scalar branch/compare"
    return "scalar other (address, integer, spill)"


def main():
    by_function = "--functions" in sys.argv
    sys.argv = [a for a in sys.argv if a != "--functions"]
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    costs = executed(sys.argv[1])
    table = mnemonics(sys.argv[2])
    by_class = Counter()
    by_op = Counter()
    missing = 0
    for addr, n in costs.items():
        if addr not in table:
            missing += n
            continue
        op, args = table[addr]
        by_class[classify(op, args)] += n
        by_op[op] += n
    total = sum(costs.values())
    print(f"{total} instructions ({missing} outside the binary)")
    for k, v in by_class.most_common():
        print(f"  {k:40s} {v:12d} {100.0 * v / total:5.1f} %")
    print("top mnemonics:", ", ".join(f"{k} {100.0 * v / total:.1f} %" for k, v in by_op.most_common(14)))
    if by_function:
        region = functions_of(sys.argv[2], sorted(costs))
        split = Counter()
        for addr, n in costs.items():
            split[region.get(addr, "other (solve.c, libc)")] += n
        print("by function:")
        for k, v in split.most_common():
            print(f"  {k:56s} {v:12d} {100.0 * v / total:5.1f} %")


if __name__ == "__main__":
    main()
