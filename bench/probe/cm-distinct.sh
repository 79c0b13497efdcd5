#!/bin/bash
# In the guest: callgrind (--dump-instr=yes) on cmtime's client, columns rdma-core, BEFORE=<lib dir> and ours, one dump
# before each step's first call and one at its end (the step's entry point), so that bench/probe/cgnew.py counts the
# instructions each step runs for the first time in the process (what QEMU's TCG translates), per library.
#   BEFORE=DIR bash bench/probe/cm-distinct.sh OUTDIR [CONNS]
set -u
cd "$(dirname "$0")/../.." || exit 1
export REPO=$PWD
source tests/guest/lib/testlib.sh
OUT=${1:?}; C=${2:-20}
mkdir -p "$OUT"
source bench/probe/lib.sh
ENVS[before]="LD_LIBRARY_PATH=${BEFORE:?}"
PORT=25000
for col in stock before ours; do
    PORT=$((PORT+1))
    # shellcheck disable=SC2086
    env ${ENVS[$col]} timeout 400 cmtime -b "$IP0" -p $PORT -c "$C" > /dev/null 2>&1 & S=$!
    for _ in $(seq 100); do rdma resource show cm_id 2>/dev/null | grep -q "LISTEN.*:$PORT " && break; sleep 0.2; done
    # shellcheck disable=SC2086
    env ${ENVS[$col]} timeout 400 valgrind --tool=callgrind --dump-instr=yes --compress-pos=no --compress-strings=no \
        --dump-before=rdma_bind_addr --dump-before=rdma_resolve_addr --dump-before=rdma_resolve_route \
        --dump-before=rdma_create_qp --dump-before=rdma_connect --dump-before=rdma_disconnect \
        --callgrind-out-file="$OUT/cg.$col" cmtime -s "$IP0" -b "$IP1" -p $PORT -c "$C" > "$OUT/cg.$col.log" 2>&1
    kill $S; wait $S 2>/dev/null
    python3 bench/probe/cgnew.py "$OUT/cg.$col" | grep -v "^  " | sed "s/^/new $col: /"
done
