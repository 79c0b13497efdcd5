#!/bin/bash
# In the guest, after the change: cmprobe and cmtime interleaved, rping's DISCONNECTED rate, then the CM cases.
set -u
cd "$(dirname "$0")/../.." || exit 1
export REPO=$PWD
source tests/guest/lib/testlib.sh
P=$REPO/build/cmprobe
declare -A ENVS=([stock]="RDMA_CORE_RS_STOCK=1" [ours]="LD_LIBRARY_PATH=$OURS")
PORT=22000
cmt() {
    local col=$1 c=$2; PORT=$((PORT+1))
    env ${ENVS[$col]} timeout 40 cmtime -b "$IP0" -p $PORT -c "$c" > /tmp/cms.log 2>&1 & local s=$!
    for _ in $(seq 50); do rdma resource show cm_id 2>/dev/null | grep -q "LISTEN.*:$PORT " && break; sleep 0.2; done
    env ${ENVS[$col]} timeout 40 cmtime -s "$IP0" -b "$IP1" -p $PORT -c "$c" > /tmp/cmc.log 2>&1
    kill $s; wait $s 2>/dev/null
    grep -E "^(create id|bind addr|resolve|create qp|connect|disconnect|destroy) " /tmp/cmc.log | sed "s/^/cmtime $col: /"
}
for r in 1 2 3 4 5 6; do
    if (( r % 2 )); then cols="stock ours"; else cols="ours stock"; fi
    for col in $cols; do
        env ${ENVS[$col]} $P 100 | sed "s/^/probe $col: /"
        cmt "$col" 100
    done
done
bash bench/probe/rping-disc.sh 30
SUITE_CASES="30-cm-debian 35-cm-c" bash tests/guest/suite.sh
