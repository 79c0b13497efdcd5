#!/bin/bash
# rsockets over Soft-iWARP (siw0 on veth0 <-> siw1 on veth1, tests/guest/setup-siw.sh): iWARP has no RDMA write
# with immediate data, so every rsocket message is also sent as a 4-byte inline send (rdma-core's RS_OPT_MSG_SEND).
# Debian's rstream (plain, -T v, -T b with 100-byte messages) and riostream -T v, ours on both sides, mixed with
# rdma-core's both ways, and rdma-core alone as the reference (stock/); udpong, whose datagram rsockets need UD, which
# iWARP lacks, must fail at rconnect with rdma-core's error. Runs after 60-siw (it replaces the rxe links for its
# duration and puts them back).
#
#   tests/guest/run -e CASE_LIBS=stock -- bash tests/guest/cases/65-rsocket-siw.sh    (validation on rdma-core)
set -u
source "$(dirname "$0")/../lib/testlib.sh"
source "$(dirname "$0")/../setup-siw.sh"
T=${CASE_TIMEOUT:-60}
OURS_=$(libs ours)
case_t0=$(now)

if ! siw_setup; then
    fail rsocket-siw-setup "$SIW_SETUP_ERROR"
    siw_teardown
    summary 65-rsocket-siw
    exit 1
fi

MODES=("$OURS_ $OURS_ ours" "$OURS_ stock ours-server/stock-client" "stock $OURS_ stock-server/ours-client" "stock stock stock")
R='^custom +[0-9.]+[kmg]? +[0-9.]+[kmg]? +[0-9.]+[kmg]? +[0-9.]+[kmg]? +[0-9.]+s'
port=7950
run() {
    local name=$1 prog=$2 args=$3 m sl cl label
    for m in "${MODES[@]}"; do
        read -r sl cl label <<< "$m"
        port=$((port + 1))
        pair "siw-$label/$name" "$sl" "$cl" - \
            "$prog $args -b $IP0 -p $port" "$prog $args -s $IP0 -b $IP1 -p $port" "$R"
    done
}
run rstream rstream "-S 8192 -C 200"
run rstream-verify rstream "-T v -S 65536 -C 50"
run rstream-blocking-100B rstream "-T b -S 100 -C 300"
run riostream-verify riostream "-T v -S 65536 -C 50"

# The start of a connection, ten times over (ours on both sides): the passive side must not send before the active
# side has (an iWARP rule; Soft-iWARP's initiator fails the connection with EINVAL when the responder's first
# message overtakes its MPA reply, seen in 1 of 5 runs before rsockets held the passive side's first send).
for k in 1 2 3 4 5 6 7 8 9 10; do
    port=$((port + 1))
    pair "siw-ours/connection-start-$k" "$OURS_" "$OURS_" - \
        "rstream -T v -S 4096 -C 4 -b $IP0 -p $port" "rstream -T v -S 4096 -C 4 -s $IP0 -b $IP1 -p $port" "$R"
done

# Datagram rsockets: iWARP has no UD QP, so udpong's client fails at rconnect with rdma_create_qp's errno, ours as
# rdma-core's (no server needed: nothing is sent before the QP exists).
declare -A udp_msg
for lib in stock "$OURS_"; do
    port=$((port + 1))
    log="$WORK/siw-udpong.$lib.log"
    # shellcheck disable=SC2046
    env $(libenv "$lib") timeout 20 udpong -s "$IP0" -b "$IP1" -p "$port" -C 10 > "$log" 2>&1
    rc=$?
    udp_msg[$lib]=$(grep -m1 'rconnect: ' "$log")
    label=siw-$lib; [[ $lib == stock ]] && label=siw-stock
    if (( rc != 0 && rc != 124 )) && [[ -n ${udp_msg[$lib]} ]]; then
        pass "$label/udpong-fails" "exit $rc: ${udp_msg[$lib]}"
    else
        fail "$label/udpong-fails" "exit $rc (expected rconnect to fail: no UD on iWARP)" "$log"
    fi
done
if [[ $OURS_ != stock ]]; then
    if [[ ${udp_msg[stock]} == "${udp_msg[$OURS_]}" ]]; then
        pass "siw-ours/udpong-same-error" "${udp_msg[stock]}"
    else
        fail "siw-ours/udpong-same-error" "rdma-core: '${udp_msg[stock]}', ours: '${udp_msg[$OURS_]}'"
    fi
fi

siw_teardown
echo "# 65-rsocket-siw took $(dur "$case_t0" "$(now)")"
summary 65-rsocket-siw
(( failed == 0 ))
