#!/usr/bin/env python3
"""Sums cgnew.py's per-dump counts (of bench/probe/cm-distinct.sh's dumps) by cmtime step: a dump made before a
call of X holds what ran since the previous dump, so it is charged to the previous dump's step (the first dump:
start-up and create id; the last, at exit: disconnect and destroy).   newsteps.py CGNEW_OUTPUT (lines 'new COL: ...')"""
import re, sys, collections
step_of = {'rdma_bind_addr': 'bind addr', 'rdma_resolve_addr': 'resolve addr', 'rdma_resolve_route': 'resolve route',
           'rdma_create_qp': 'create qp', 'rdma_connect': 'connect', 'rdma_disconnect': 'disconnect+destroy'}
tot = collections.defaultdict(collections.Counter); prev = {}
for line in open(sys.argv[1]):
    m = re.match(r'^new (\w+): (\S+)\s+(.*?)new\s+(\d+) \|(.*)$', line)
    if not m:
        continue
    col, trig, det = m.group(1), m.group(3).strip(), m.group(5)
    cur = prev.get(col, 'start+create id')
    for part in det.split(','):
        p = part.strip().rsplit(' ', 1)
        if len(p) == 2:
            lib = re.sub(r'\.so.*', '', p[0])
            tot[(col, cur)][lib] += int(p[1])
    t = re.search(r'--dump-before=(\w+)', trig)
    if t:
        prev[col] = step_of.get(t.group(1), t.group(1))
for (col, st), c in tot.items():
    if st == 'start+create id':
        continue
    print(f'{col:7} {st:20} {sum(c.values()):6} | ' + ', '.join(f'{k} {v}' for k, v in c.most_common()))
