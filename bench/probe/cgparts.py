#!/usr/bin/env python3
"""Per dump part of a callgrind run (--dump-instr=yes --compress-pos=no --compress-strings=no): trigger, self Ir,
distinct instructions executed (static code touched) and distinct 4 KiB code pages, per object."""
import re, sys, glob, collections
for f in sorted(glob.glob(sys.argv[1] + '.*'), key=lambda x: int(x.rsplit('.', 1)[1]) if x.rsplit('.', 1)[1].isdigit() else -1):
    if not f.rsplit('.', 1)[1].isdigit():
        continue
    trig, ob, skip = '', '?', False
    ir = collections.Counter(); ins = collections.defaultdict(set)
    for line in open(f):
        if line.startswith('desc: Trigger:'):
            trig = line.split(':', 2)[2].strip()
        elif line.startswith('ob='):
            ob = line[3:].strip().rsplit('/', 1)[-1]
        elif line.startswith('calls='):
            skip = True
        elif re.match(r'^0x[0-9a-f]+ ', line):
            if skip:
                skip = False; continue
            a, _, c = line.split()[:3]
            ir[ob] += int(c); ins[ob].add(int(a, 16))
        elif line.startswith(('cob=', 'cfn=', 'cfi=', 'cfl=')):
            pass
    tot = sum(ir.values()); n = sum(len(v) for v in ins.values())
    pages = sum(len({a >> 12 for a in v}) for v in ins.values())
    det = ', '.join(f'{o}: {ir[o]} Ir / {len(ins[o])} ins / {len({a>>12 for a in ins[o]})} pg' for o in sorted(ir, key=lambda o: -ir[o])[:5])
    print(f'{f.rsplit("/",1)[-1]:12} {trig[:40]:40} Ir {tot:7} distinct-ins {n:6} pages {pages:3} | {det}')
