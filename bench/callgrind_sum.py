#!/usr/bin/env python3
"""Inclusive instruction counts per function from a callgrind output file (part of `make bench`).

    python3 bench/callgrind_sum.py CALLGRIND_OUT [PREFIX]

Prints "function inclusive_Ir" for every function whose name starts with PREFIX (default "bench_"). Reads the file
format directly (rather than callgrind_annotate, whose --threshold drops small entries once inclusive costs add up
past 100%): inside each "fn=" block, every cost line is either the function's own cost or, right after a "calls="
line, the inclusive cost of that call; their sum is the function's inclusive cost. Name compression ("fn=(id) name"
then "fn=(id)") is resolved. Only the first event (Ir) is used.
"""
import re
import sys


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    path = sys.argv[1]
    prefix = sys.argv[2] if len(sys.argv) > 2 else "bench_"
    names = {}
    totals = {}
    current = None
    name_re = re.compile(r"^\((\d+)\)(?:\s+(.*))?$")

    def resolve(spec):
        m = name_re.match(spec.strip())
        if not m:
            return spec.strip()
        if m.group(2):
            names[m.group(1)] = m.group(2)
        return names.get(m.group(1), spec.strip())

    with open(path, errors="replace") as f:
        for line in f:
            if not line or line[0] == "\n":
                continue
            c = line[0]
            if c.isdigit() or c in "+-*":
                if current is not None and current.startswith(prefix):
                    parts = line.split()
                    if len(parts) >= 2:
                        try:
                            totals[current] = totals.get(current, 0) + int(parts[1])
                        except ValueError:
                            pass
                continue
            if line.startswith("fn="):
                current = resolve(line[3:])
            elif line.startswith("cfn="):
                resolve(line[4:])  # registers the name for later "fn=(id)" references
            elif line.startswith(("cfi=", "cfl=", "fi=", "fe=", "fl=", "ob=", "cob=")):
                pass  # file/object names: not needed
    for name in sorted(totals):
        print(f"{name} {totals[name]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
