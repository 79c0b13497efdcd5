#!/bin/bash
# In the guest: where cmtime's create-id/destroy wall-time gap comes from (issue 24). Interleaved, both columns.
#   bash bench/probe/cm-gap.sh [REPS]
set -u
cd "$(dirname "$0")/../.." || exit 1
export REPO=$PWD
source tests/guest/lib/testlib.sh
REPS=${1:-3}
P=$REPO/build/cmprobe
PORT=21000
source bench/probe/lib.sh
for r in $(seq "$REPS"); do
    if (( r % 2 )); then cols="stock ours"; else cols="ours stock"; fi
    for col in $cols; do
        echo "== rep $r $col"
        env ${ENVS[$col]} $P 100 | sed "s/^/cold $col: /"
        env ${ENVS[$col]} $P 100 warm | sed "s/^/warm $col: /"
        env ${ENVS[$col]} $P 100 thread | sed "s/^/thread $col: /"
        env ${ENVS[$col]} LD_BIND_NOW=1 $P 100 | sed "s/^/bindnow $col: /"
        env ${ENVS[$col]} $P 1000 | sed "s/^/n1000 $col: /"
        cmt "$col" 100 "cmtime-100 $col: "
    done
done
echo "== perf"
for col in stock ours; do
    env ${ENVS[$col]} perf stat -e task-clock,page-faults,context-switches,cpu-migrations $P 100 2>&1 | sed "s/^/perf $col: /"
done
