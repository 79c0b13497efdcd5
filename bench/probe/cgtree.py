#!/usr/bin/env python3
"""Self cost and callees (calls, inclusive Ir) of the functions whose name contains PATTERN, from a callgrind file
(--compress-strings=no --compress-pos=no).   cgtree.py FILE PATTERN..."""
import sys, collections
selfc = collections.Counter(); callee = collections.defaultdict(collections.Counter); ncalls = collections.defaultdict(collections.Counter)
fn, cfn, pend = None, None, None
for line in open(sys.argv[1]):
    if line.startswith('fn='):
        fn = line[3:].strip()
    elif line.startswith('cfn='):
        cfn = line[4:].strip()
    elif line.startswith('calls='):
        pend = int(line[6:].split()[0])
    elif line[:1].isdigit() or line.startswith('0x') or line.startswith('+') or line.startswith('-') or line.startswith('*'):
        p = line.split()
        if len(p) < 2:
            continue
        if pend is not None:
            callee[fn][cfn] += int(p[1]); ncalls[fn][cfn] += pend; pend = None
        else:
            selfc[fn] += int(p[1])
for pat in sys.argv[2:]:
    for f in sorted(set(selfc) | set(callee)):
        if pat in f:
            tot = selfc[f] + sum(callee[f].values())
            print(f'== {f}: self {selfc[f]}, inclusive {tot}')
            for c, v in callee[f].most_common():
                print(f'   {v:9} {ncalls[f][c]:6}x {c}')
