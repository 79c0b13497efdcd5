#!/bin/bash
# In the guest: cmtime -c 100 (and cmprobe 1000) interleaved over three columns: rdma-core, our libraries of an
# earlier build (BEFORE=<lib dir>) and the current ones, so that a change is timed against its own "before" in one
# boot.   BEFORE=DIR bash bench/probe/cm-abc.sh [ROUNDS]
set -u
cd "$(dirname "$0")/../.." || exit 1
export REPO=$PWD
source tests/guest/lib/testlib.sh
R=${1:-6}
source bench/probe/lib.sh
ENVS[before]="LD_LIBRARY_PATH=${BEFORE:?}"
PORT=24000
for r in $(seq "$R"); do
    case $((r % 3)) in 1) cols="stock before ours" ;; 2) cols="ours stock before" ;; 0) cols="before ours stock" ;; esac
    for col in $cols; do
        cmt "$col" 100 "cmtime $col: "
        # shellcheck disable=SC2086
        env ${ENVS[$col]} build/cmprobe 1000 | sed "s/^/probe $col: /"
    done
done
