#!/bin/bash
# In the guest: the rping teardown race of docs/cm.md, timed. Both ends of Debian's rping on one column's
# librdmacm, each under `strace -f -ttt` limited to write/exit_group (seccomp filter: the other calls run
# untraced); per run, from the rdma_ucm commands (the first word of each write to the rdma_cm fd):
#   server: GET_EVENT (12) return -> its DISCONNECT (10) write: the server's reaction to the client's DREQ
#   client: DISCONNECT (10) write -> exit_group: the window in which the client's DISCONNECTED can still be printed
# and whether the client printed "client DISCONNECT EVENT".   bash bench/probe/rping-tt.sh [RUNS_PER_COLUMN]
set -u
cd "$(dirname "$0")/../.." || exit 1
export REPO=$PWD
source tests/guest/lib/testlib.sh
N=${1:-8}
source bench/probe/lib.sh
port=7800
# analyse COL SERVER_TRACE CLIENT_TRACE MISSED: one result line
analyse() {
    local col=$1 srv=$2 cli=$3 miss=$4
    python3 - "$col" "$srv" "$cli" "$miss" <<'PY'
import re, sys
col, srv, cli, miss = sys.argv[1:]
def lines(f):
    out = []
    for l in open(f):
        m = re.match(r'(\d+)\s+(\d+\.\d+) (.*)', l)
        if m: out.append((int(m.group(1)), float(m.group(2)), m.group(3)))
    return out
def cmd(s):
    m = re.search(r'write\(\d+, "((?:\\x[0-9a-f]{2}|\\[0-7]{1,3}|\\.|[^"\\])*)"', s)
    if not m: return None
    b = m.group(1).encode().decode('unicode_escape').encode('latin-1')
    return int.from_bytes(b[:4], 'little') if len(b) >= 4 else None
S = lines(srv); C = lines(cli)
# server: the DISCONNECT write, and the GET_EVENT that returned last before it (resumed or complete lines)
sd = next((t for p, t, s in S if cmd(s) == 10), None)
ge = max((t for p, t, s in S if sd is not None and t <= sd
          and ('write resumed>' in s or (cmd(s) == 12 and 'unfinished' not in s))), default=None)
cd = next((t for p, t, s in C if cmd(s) == 10), None)
ex = max((t for p, t, s in C if 'exit_group' in s or '+++ exited' in s), default=None)
f = lambda x: f'{x*1e3:7.2f}' if x is not None else '    n/a'
react = sd - ge if sd and ge else None
win = ex - cd if ex and cd else None
ddrep = sd - cd if sd and cd else None
print(f'rping-tt {col}: server event->DISCONNECT {f(react)} ms, client DISCONNECT->exit {f(win)} ms, client DISCONNECT->server DISCONNECT {f(ddrep)} ms, missed {miss}')
PY
}
for i in $(seq "$N"); do
    if (( i % 2 )); then cols="stock ours"; else cols="ours stock"; fi
    for col in $cols; do
        port=$((port + 1))
        env ${ENVS[$col]} timeout 30 strace -f -ttt -qq --seccomp-bpf -e trace=write,exit_group -o /tmp/srv.st \
            rping -s -v -a "$IP0" -p $port -C 20 -V > /tmp/rs.log 2>&1 & s=$!
        for _ in $(seq 50); do rdma resource show cm_id 2>/dev/null | grep -q "LISTEN.*:$port " && break; sleep 0.1; done
        env ${ENVS[$col]} timeout 30 strace -f -ttt -qq --seccomp-bpf -e trace=write,exit_group -o /tmp/cli.st \
            rping -c -v -a "$IP0" -I "$IP1" -p $port -C 20 -V > /tmp/rc.log 2>&1
        wait $s
        miss=0; grep -q "client DISCONNECT EVENT" /tmp/rc.log || miss=1
        analyse "$col" /tmp/srv.st /tmp/cli.st $miss
    done
done
