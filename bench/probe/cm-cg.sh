#!/bin/bash
# In the guest: callgrind per call of rdma_create_id/rdma_destroy_id (first call vs the next), and strace -T.
#   bash bench/probe/cm-cg.sh OUTDIR
set -u
cd "$(dirname "$0")/../.." || exit 1
export REPO=$PWD
source tests/guest/lib/testlib.sh
OUT=${1:?}
mkdir -p "$OUT"
source bench/probe/lib.sh
for col in stock ours; do
    env ${ENVS[$col]} valgrind --tool=callgrind --dump-instr=yes --compress-pos=no --compress-strings=no --callgrind-out-file="$OUT/cg.$col" \
        build/cmprobe 4 > "$OUT/cg.$col.log" 2>&1
    : env ${ENVS[$col]} strace -tt -T -o "$OUT/strace.$col" build/cmprobe 4 > /dev/null 2>&1
done
ls -la "$OUT"
for r in 1; do for col in stock ours; do
    env ${ENVS[$col]} build/cmprobe 100 | sed "s/^/n100 $col: /"
done; done
