#!/usr/bin/env python3
"""The dynamic instruction mix of a callgrind profile (docs/roofline.md).

Reads a profile written with `valgrind --tool=callgrind --dump-instr=yes`
and the binary it profiled, disassembles the binary with objdump, and sums
the executed instructions by class: vector FMA, other vector arithmetic,
vector compares and blends, vector moves (register copies, to and from
the stack: the group's pose kept there shows here, other loads and stores), scalar
(integer, address, branch) and the rest.

    roofline_mix.py callgrind.out BINARY
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


if __name__ == "__main__":
    main()
