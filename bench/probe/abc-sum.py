#!/usr/bin/env python3
"""Medians per column of bench/probe/cm-abc.sh's output: cmtime's us/conn per step, cmprobe's median and mean
per call.   abc-sum.py LOG"""
import re, sys, statistics, collections
v = collections.defaultdict(list)
for line in open(sys.argv[1]):
    m = re.match(r'^cmtime (\w+): ([a-z ]+?)\s*:\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+([\d.]+)', line)
    if m:  # cmtime's columns: total ms, max ms, min us, us / conn
        v[(m.group(2), m.group(1))].append(float(m.group(3)))
        continue
    m = re.match(r'^probe (\w+): (\w+)\s+first.*median\s+([\d.]+).*us/call\s+([\d.]+)', line)
    if m:
        v[('probe ' + m.group(2) + ' median', m.group(1))].append(float(m.group(3)))
        v[('probe ' + m.group(2) + ' mean', m.group(1))].append(float(m.group(4)))
steps = []
for s, _ in v:
    if s not in steps:
        steps.append(s)
print(f'{"step":24} {"rdma-core":>10} {"before":>10} {"after":>10} {"b/rc":>6} {"a/rc":>6}  n')
for s in steps:
    med = {c: statistics.median(v[(s, c)]) for c in ('stock', 'before', 'ours') if v[(s, c)]}
    if len(med) < 3:
        continue
    print(f'{s:24} {med["stock"]:10.1f} {med["before"]:10.1f} {med["ours"]:10.1f} {med["before"]/med["stock"]:6.2f} {med["ours"]/med["stock"]:6.2f}  {len(v[(s, "ours")])}')
