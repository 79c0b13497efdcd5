#!/bin/bash
# In the guest: per-step cost of Debian's cmtime client, both columns (issue 24): the system calls of each step
# (strace -f, split at cmtime's own step lines, stdout line-buffered) and callgrind's inclusive instructions per
# entry point (bench/probe/cmcalls.py).   bash bench/probe/cm-steps.sh OUTDIR [CONNS]
set -u
cd "$(dirname "$0")/../.." || exit 1
export REPO=$PWD
source tests/guest/lib/testlib.sh
OUT=${1:?}; C=${2:-20}
mkdir -p "$OUT"
source bench/probe/lib.sh
PORT=23000
srv() { # COL: a cmtime server on a fresh port (PORT), native
    PORT=$((PORT+1))
    # shellcheck disable=SC2086
    env ${ENVS[$1]} timeout 400 cmtime -b "$IP0" -p $PORT -c "$C" > /dev/null 2>&1 & S=$!
    for _ in $(seq 100); do rdma resource show cm_id 2>/dev/null | grep -q "LISTEN.*:$PORT " && break; sleep 0.2; done
}
for col in stock ours; do
    srv "$col"
    # shellcheck disable=SC2086
    env ${ENVS[$col]} timeout 300 strace -f -tt -T -o "$OUT/st.$col" stdbuf -oL cmtime -s "$IP0" -b "$IP1" -p $PORT -c "$C" > "$OUT/st.$col.log" 2>&1
    kill $S; wait $S 2>/dev/null
    python3 bench/probe/ststeps.py "$OUT/st.$col" | sed "s/^/strace $col: /"
    srv "$col"
    # shellcheck disable=SC2086
    env ${ENVS[$col]} timeout 400 valgrind --tool=callgrind --compress-pos=no --compress-strings=no \
        --callgrind-out-file="$OUT/cg.$col" cmtime -s "$IP0" -b "$IP1" -p $PORT -c "$C" > "$OUT/cg.$col.log" 2>&1
    kill $S; wait $S 2>/dev/null
    python3 bench/probe/cmcalls.py "$OUT/cg.$col" | sed "s/^/cg $col: /"
done
