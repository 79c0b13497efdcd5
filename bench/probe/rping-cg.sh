#!/bin/bash
# In the guest: callgrind on Debian's rping server (the client runs natively), dumps around rdma_get_cm_event and
# rdma_disconnect, so that bench/probe/cgnew.py can count the instructions each part runs for the first time in the
# process (what TCG must translate) on the server's path from the client's DREQ (its DISCONNECTED event) to its own
# DISCONNECT (the DREP).   bash bench/probe/rping-cg.sh OUTDIR [RUNS_PER_COLUMN]
set -u
cd "$(dirname "$0")/../.." || exit 1
export REPO=$PWD
source tests/guest/lib/testlib.sh
OUT=${1:?}; N=${2:-1}
mkdir -p "$OUT"
source bench/probe/lib.sh
port=7900
for i in $(seq "$N"); do for col in stock ours; do
    port=$((port + 1))
    # shellcheck disable=SC2086
    env ${ENVS[$col]} timeout 300 valgrind --tool=callgrind --dump-instr=yes --compress-pos=no --compress-strings=no \
        --dump-before=rdma_get_cm_event --dump-after=rdma_get_cm_event \
        --dump-before=rdma_disconnect --dump-after=rdma_disconnect \
        --callgrind-out-file="$OUT/cg.$col.$i" rping -s -v -a "$IP0" -p $port -C 3 -V > "$OUT/srv.$col.$i.log" 2>&1 & s=$!
    for _ in $(seq 300); do rdma resource show cm_id 2>/dev/null | grep -q "LISTEN.*:$port " && break; sleep 0.2; done
    # shellcheck disable=SC2086
    env ${ENVS[$col]} timeout 120 rping -c -v -a "$IP0" -I "$IP1" -p $port -C 3 -V > "$OUT/cli.$col.$i.log" 2>&1
    echo "run $i $col: client $? server $(wait $s; echo $?)"
    python3 bench/probe/cgnew.py "$OUT/cg.$col.$i" | sed "s/^/$col.$i: /"
done; done
