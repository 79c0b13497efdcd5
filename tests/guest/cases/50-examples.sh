#!/bin/bash
# Our teaching programs (c-examples/, built into build/examples by `make examples`) in pairs over Soft-RoCE: server on
# rxe0 (198.18.0.1), client on rxe1 (198.18.0.2), both over OUR libraries. A pair passes when both sides exit 0 and
# both outputs show the data that crossed the wire (every message, its size, and the values RDMA read/write and the
# atomics produced). CASE_LIBS=stock runs the same pairs on the system's rdma-core 44 (the validation of the test):
#   tests/guest/run -e CASE_LIBS=stock -- bash tests/guest/cases/50-examples.sh
set -u
source "$(dirname "$0")/../lib/testlib.sh"
T=${CASE_TIMEOUT:-40}
EX=$REPO/build/examples
L=$(libs ours)      # "stock" under CASE_LIBS=stock

# judge NAME SPEC... : after pair_ready. PASS when both exited 0 and every SPEC holds. A SPEC is SIDE:COUNT:REGEX
# (SIDE S = server output, C = client output): exactly COUNT lines match the extended REGEX.
judge() {
    local name=$1 why="" spec side n re log got last_c=""; shift
    (( PAIR_CRC == -1 )) && why+="$PAIR_WHY "
    (( PAIR_CRC > 0 )) && why+="client exit $PAIR_CRC "
    (( PAIR_SRC != 0 && PAIR_CRC != -1 )) && why+="server exit $PAIR_SRC "
    if [[ -z $why ]]; then
        for spec in "$@"; do
            side=${spec%%:*} spec=${spec#*:}
            n=${spec%%:*} re=${spec#*:}
            log=$PAIR_SLOG
            [[ $side == C ]] && log=$PAIR_CLOG last_c=$re
            got=$(grep -Ec -- "$re" "$log")
            (( got == n )) || why+="$([[ $side == C ]] && echo client || echo server) output: $got lines /$re/, want $n; "
        done
    fi
    if [[ -z $why ]]; then
        # the details: the client's line that the last C spec matched (its summary)
        pass "$name" "$L, $(dur "$PAIR_T0" "$(now)"): $(grep -Em1 -- "$last_c" "$PAIR_CLOG" | sed 's/^[^:]*: //')"
    else
        [[ $why == *124* ]] && why+="(124 = killed by timeout ${T}s)"
        fail "$name" "$why" "$PAIR_SLOG" "$PAIR_CLOG"
    fi
}

missing=""
for p in cm_server cm_client verbs_pingpong ep_server ep_client rdma_ops; do
    [[ -x $EX/$p ]] || missing+=" $p"
done
if [[ -n $missing ]]; then
    fail examples "not built:$missing (run 'make examples' on the host first)"
    summary examples
    exit 1
fi

# (a) rdma_cm event loop: 3 messages and their echoes. The dynamic linker's trace of both sides is kept: with our
#     libraries it must show build/lib's libibverbs and librdmacm initialised, and not the system's.
pair_ready examples/cm "$L" "$L" 'listening on' \
    "env LD_DEBUG=files LD_DEBUG_OUTPUT=$WORK/cm.server.ld $EX/cm_server -a $IP0 -p 7471" \
    "env LD_DEBUG=files LD_DEBUG_OUTPUT=$WORK/cm.client.ld $EX/cm_client -a $IP0 -b $IP1 -p 7471 -n 3"
judge examples/cm \
    'S:3:received +24 bytes: "hello from cm_client #[1-3]"$' \
    'S:3:replied +28 bytes: "re: hello from cm_client #[1-3]"$' \
    'S:1:answered 3 messages: OK$' \
    'C:3:sent +24 bytes: "hello from cm_client #[1-3]"$' \
    'C:3:received +28 bytes: "re: hello from cm_client #[1-3]"$' \
    'C:1:3 messages sent, 3 replies checked: OK$'
if [[ $L == ours ]]; then
    for side in server client; do
        cat "$WORK"/cm.$side.ld.* > "$WORK/cm.$side.ldso.log" 2>/dev/null
        ldso_check "examples/cm-$side-libs" "$WORK/cm.$side.ldso.log" "libibverbs librdmacm"
    done
fi

# (b) verbs step by step, QP coordinates over TCP: 5 pings, 5 pongs.
pair_ready examples/verbs_pingpong "$L" "$L" 'waiting for the client on TCP port' \
    "$EX/verbs_pingpong -d $DEV0 -g $GID0 -p 18521 -n 5" \
    "$EX/verbs_pingpong -d $DEV1 -g $GID1 -p 18521 -n 5 $IP0"
judge examples/verbs_pingpong \
    'S:1:\[7\] received qpn [0-9]+ psn 0x[0-9a-f]{6} rkey 0x[0-9a-f]+ addr 0x[0-9a-f]+ lid 0 gid ::ffff:198\.18\.0\.2$' \
    'S:5:received +7 bytes: "ping [1-5]"$' \
    'S:5:sent +7 bytes: "pong [1-5]"$' \
    'S:1:\[10\] .*: OK$' \
    'C:1:\[7\] received qpn [0-9]+ psn 0x[0-9a-f]{6} rkey 0x[0-9a-f]+ addr 0x[0-9a-f]+ lid 0 gid ::ffff:198\.18\.0\.1$' \
    'C:5:sent +7 bytes: "ping [1-5]"$' \
    'C:5:received +7 bytes: "pong [1-5]"$' \
    'C:1:\[10\] .*: OK$' \
    'C:1:5 round trips, every message checked$'

# (c) the synchronous endpoint API: 3 requests and replies; the count travels in the connect's private data.
pair_ready examples/ep "$L" "$L" 'listening on' \
    "$EX/ep_server -a $IP0 -p 7472" \
    "$EX/ep_client -a $IP0 -b $IP1 -p 7472 -n 3"
judge examples/ep \
    'S:1:private data asks for 3 round trips$' \
    'S:3:received +15 bytes: "request [1-3] of 3"$' \
    'S:3:sent +25 bytes: "reply to: request [1-3] of 3"$' \
    'S:1:3 round trips done: OK$' \
    'C:3:sent +15 bytes: "request [1-3] of 3"$' \
    'C:3:received +25 bytes: "reply to: request [1-3] of 3"$' \
    'C:1:3 of 3 replies checked: OK$'

# (d) RDMA read, write, fetch-and-add, compare-and-swap on the server's memory, checked by both sides.
pair_ready examples/rdma_ops "$L" "$L" 'listening on' \
    "$EX/rdma_ops -s -a $IP0 -p 7473" \
    "$EX/rdma_ops -a $IP0 -b $IP1 -p 7473"
judge examples/rdma_ops \
    'C:1:RDMA READ +64 bytes: counter=100 text="the server.s original text"$' \
    'C:1:RDMA WRITE +38 bytes: text="written by the client with RDMA WRITE"$' \
    'C:1:FETCH_ADD +\+5: returned 100$' \
    'C:1:COMPARE_SWAP if 105 then 7: returned 105$' \
    'C:1:COMPARE_SWAP if 105 then 999: returned 7$' \
    'C:1:RDMA READ +64 bytes: counter=7 text="written by the client with RDMA WRITE"$' \
    'C:1:RECV +14 bytes: "server agrees"$' \
    'S:1:our memory now: counter=7 text="written by the client with RDMA WRITE": as the client says$' \
    'S:1:: OK$' \
    'C:1:6 checks passed, 0 failed: OK$'

summary examples
(( failed == 0 ))
