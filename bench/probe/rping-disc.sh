#!/bin/bash
# In the guest: how often Debian's rping client prints its own "DISCONNECT EVENT" (issue 24). Both ends on one
# column's librdmacm; columns alternate run by run, in one boot.
#   bash bench/probe/rping-disc.sh [RUNS_PER_COLUMN]
set -u
cd "$(dirname "$0")/../.." || exit 1
export REPO=$PWD
source tests/guest/lib/testlib.sh
N=${1:-30}
source bench/probe/lib.sh
declare -A MISS=([stock]=0 [ours]=0) RUNS=([stock]=0 [ours]=0) FAILS=([stock]=0 [ours]=0)
port=7600
for i in $(seq "$N"); do
    if (( i % 2 )); then cols="stock ours"; else cols="ours stock"; fi
    for col in $cols; do
        port=$((port + 1))
        env ${ENVS[$col]} timeout 20 rping -s -v -a "$IP0" -p $port -C 20 -V > /tmp/rs.log 2>&1 & s=$!
        for _ in $(seq 50); do rdma resource show cm_id 2>/dev/null | grep -q "LISTEN.*:$port " && break; sleep 0.1; done
        env ${ENVS[$col]} timeout 20 rping -c -v -a "$IP0" -I "$IP1" -p $port -C 20 -V > /tmp/rc.log 2>&1; rc=$?
        wait $s; src=$?
        RUNS[$col]=$((RUNS[$col] + 1))
        if (( rc || src )); then FAILS[$col]=$((FAILS[$col] + 1)); echo "run $i $col: client $rc server $src"; tail -3 /tmp/rc.log; fi
        grep -q "client DISCONNECT EVENT" /tmp/rc.log || MISS[$col]=$((MISS[$col] + 1))
    done
done
for col in stock ours; do
    echo "rping-disc $col: client DISCONNECT EVENT missing in ${MISS[$col]} of ${RUNS[$col]} runs (failed runs ${FAILS[$col]})"
done
