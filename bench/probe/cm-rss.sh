#!/bin/bash
# In the guest: where the resident memory of 1,000 rdma_create_id goes, both columns (bench/probe/cmrss.c), and the
# transparent huge page setting.   bash bench/probe/cm-rss.sh [N]
set -u
cd "$(dirname "$0")/../.." || exit 1
export REPO=$PWD
source tests/guest/lib/testlib.sh
source bench/probe/lib.sh
gcc -O2 -o /tmp/cmrss bench/probe/cmrss.c -lrdmacm || exit 1
echo "thp: $(cat /sys/kernel/mm/transparent_hugepage/enabled)"
for col in stock ours stock ours; do
    echo "== $col"
    env ${ENVS[$col]} /tmp/cmrss "${1:-1000}"
done
