#!/usr/bin/env python3
"""Per dump part of a callgrind run (--dump-instr=yes --compress-pos=no --compress-strings=no), in dump order: the
trigger and the instructions *new to the process* (executed addresses not executed in any earlier part) per object,
and for librdmacm/libibverbs the functions holding them.   cgnew.py CALLGRIND_OUT_PREFIX [OBJ_SUBSTRING...]"""
import re, sys, glob, collections
pre = sys.argv[1]
want = sys.argv[2:] or ['librdmacm', 'libibverbs', 'librxe']
files = [f for f in glob.glob(pre + '.*') if f.rsplit('.', 1)[1].isdigit()]
files.sort(key=lambda x: int(x.rsplit('.', 1)[1]))
files.append(pre) if glob.glob(pre) else None
seen = collections.defaultdict(set)
for f in files:
    trig, ob, fn, skip = '', '?', '?', False
    ins = collections.defaultdict(set); fns = collections.defaultdict(set)
    for line in open(f):
        if line.startswith('desc: Trigger:'):
            trig = line.split(':', 2)[2].strip()
        elif line.startswith('ob='):
            ob = line[3:].strip().rsplit('/', 1)[-1]
        elif line.startswith('fn='):
            fn = line[3:].strip()
        elif line.startswith('calls='):
            skip = True
        elif re.match(r'^0x[0-9a-f]+ ', line):
            if skip:
                skip = False; continue
            a = int(line.split()[0], 16)
            ins[ob].add(a); fns[(ob, fn)].add(a)
    new = {o: ins[o] - seen[o] for o in ins}
    tot = sum(len(v) for v in new.values())
    det = ', '.join(f'{o} {len(new[o])}' for o in sorted(new, key=lambda o: -len(new[o])) if new[o])
    print(f'{f.rsplit("/",1)[-1]:14} {trig[:44]:44} new {tot:6} | {det}')
    for (o, fname), a in sorted(fns.items(), key=lambda kv: -len(kv[1] - seen[kv[0][0]])):
        n = len(a - seen[o])
        if n and any(w in o for w in want):
            print(f'{"":16}{o}: {n:5} {fname[:110]}')
    for o in ins:
        seen[o] |= ins[o]
