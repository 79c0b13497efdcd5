#!/bin/bash
# In the guest: does the first rdma_create_id/rdma_destroy_id cost depend on where the library file lives
# (the host root over 9p, cache=none, vs tmpfs) and on whether another process keeps it mapped?
set -u
cd "$(dirname "$0")/../.." || exit 1
export REPO=$PWD
source tests/guest/lib/testlib.sh
P=$REPO/build/cmprobe
SYS=/usr/lib/x86_64-linux-gnu
mkdir -p /run/ours /run/stock
cp -L "$OURS"/librdmacm.so.1 "$OURS"/libibverbs.so.1 /run/ours/
cp -L $SYS/librdmacm.so.1 $SYS/libibverbs.so.1 /run/stock/
declare -A ENVS=([stock]="RDMA_CORE_RS_STOCK=1" [ours]="LD_LIBRARY_PATH=$OURS" [ours-tmpfs]="LD_LIBRARY_PATH=/run/ours" [stock-tmpfs]="LD_LIBRARY_PATH=/run/stock")
for r in 1 2 3; do
    for col in stock ours stock-tmpfs ours-tmpfs; do
        env ${ENVS[$col]} $P 100 | sed "s/^/$col: /"
    done
done
# the same library on 9p, kept mapped by another process
for col in stock ours; do
    env ${ENVS[$col]} python3 -c 'import ctypes,time; ctypes.CDLL("librdmacm.so.1"); time.sleep(30)' & h=$!
    sleep 3
    for r in 1 2; do env ${ENVS[$col]} $P 100 | sed "s/^/$col-held: /"; done
    kill $h; wait $h 2>/dev/null
done
for col in stock ours; do
    for r in 1 2; do env ${ENVS[$col]} $P 100 | sed "s/^/$col-after: /"; done
done
grep -i 9p /proc/mounts | head -3
bash bench/probe/rping-disc.sh 30
