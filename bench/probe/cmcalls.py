#!/usr/bin/env python3
"""Calls and inclusive instructions of the rdma_*/ibv_* entry points in a callgrind file (--compress-strings=no
--compress-pos=no), summed over every call site: name, calls, instructions, per call.   cmcalls.py FILE"""
import re, sys, collections
calls = collections.Counter(); incl = collections.Counter()
cfn, pend = None, None
for line in open(sys.argv[1]):
    if line.startswith('cfn='):
        cfn = line[4:].strip()
    elif line.startswith('calls='):
        pend = int(line[6:].split()[0])
    elif pend is not None:
        parts = line.split()
        if len(parts) >= 2:
            calls[cfn] += pend; incl[cfn] += int(parts[1])
        pend = None
for f in sorted(incl, key=lambda f: -incl[f]):
    if re.match(r'^(rdma_|ibv_|ucma_|rs|__ibv_)', f) and calls[f]:
        print(f'{f:34} {calls[f]:6} {incl[f]:11} {incl[f]/calls[f]:9.0f}')
