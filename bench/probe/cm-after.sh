#!/bin/bash
# In the guest, after the change: cmprobe and cmtime interleaved, rping's DISCONNECTED rate, then the CM cases.
set -u
cd "$(dirname "$0")/../.." || exit 1
export REPO=$PWD
source tests/guest/lib/testlib.sh
P=$REPO/build/cmprobe
PORT=22000
source bench/probe/lib.sh
for r in 1 2 3 4 5 6; do
    if (( r % 2 )); then cols="stock ours"; else cols="ours stock"; fi
    for col in $cols; do
        env ${ENVS[$col]} $P 100 | sed "s/^/probe $col: /"
        cmt "$col" 100 "cmtime $col: "
    done
done
bash bench/probe/rping-disc.sh 30
SUITE_CASES="30-cm-debian 35-cm-c" bash tests/guest/suite.sh
