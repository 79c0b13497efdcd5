#!/usr/bin/env python3
"""System calls per cmtime step from `strace -f -tt -T -o FILE stdbuf -oL cmtime ...`: the step is the last step
line cmtime wrote to stdout (its writes to fd 1). Prints per step: calls by name (all threads) and their summed
time.   ststeps.py STRACE_FILE"""
import re, sys, collections
marks = {'creating id': 'create id', 'binding source address': 'bind addr', 'resolving address': 'resolve addr',
         'resolving route': 'resolve route', 'creating qp': 'create qp', 'connecting': 'connect',
         'disconnecting': 'disconnect', 'destroying id': 'destroy'}
step = 'start'
calls = collections.defaultdict(collections.Counter); tm = collections.defaultdict(float)
order = ['start']
for line in open(sys.argv[1]):
    m = re.match(r'^\d+\s+[\d:.]+\s+(?:<\.\.\. )?(\w+)', line)
    if not m:
        continue
    name = m.group(1)
    w = re.search(r'write\(1, "([^"\\]*)', line)
    if name == 'write' and w:
        for k, v in marks.items():
            if w.group(1).startswith(k):
                step = v; order.append(v)
        continue
    if 'resumed>' in line and not line.split()[2].startswith('<...'):
        pass
    if ' <unfinished ...>' in line:
        continue  # counted when resumed
    calls[step][name] += 1
    t = re.search(r'<([\d.]+)>\s*$', line)
    if t:
        tm[step] += float(t.group(1))
for s in order:
    c = calls[s]
    print(f'{s:14} {sum(c.values()):5} calls {tm[s]*1e3:8.1f} ms: ' + ', '.join(f'{n} {k}' for n, k in sorted(((v, k) for k, v in c.items()), reverse=True)).replace(' ', ' ', ))
