# Sourced by the bench/probe guest scripts (after tests/guest/lib/testlib.sh): the two library columns and one
# interleavable cmtime run.
# shellcheck shell=bash
declare -A ENVS=([stock]="RDMA_CORE_RS_STOCK=1" [ours]="LD_LIBRARY_PATH=$OURS")
PORT=${PORT:-21000}

# cmt COL CONNS PREFIX: Debian's cmtime with CONNS connections, both ends on column COL's librdmacm (rxe0 <-> rxe1);
# prints cmtime's step lines, each prefixed with PREFIX.
cmt() {
    local col=$1 c=$2 prefix=$3 s; PORT=$((PORT+1))
    # shellcheck disable=SC2086
    env ${ENVS[$col]} timeout 40 cmtime -b "$IP0" -p $PORT -c "$c" > /tmp/cms.log 2>&1 & s=$!
    for _ in $(seq 50); do rdma resource show cm_id 2>/dev/null | grep -q "LISTEN.*:$PORT " && break; sleep 0.2; done
    # shellcheck disable=SC2086
    env ${ENVS[$col]} timeout 40 cmtime -s "$IP0" -b "$IP1" -p $PORT -c "$c" > /tmp/cmc.log 2>&1
    kill $s; wait $s 2>/dev/null
    grep -E "^(create id|bind addr|resolve|create qp|connect|disconnect|destroy) " /tmp/cmc.log | sed "s/^/$prefix/"
}
