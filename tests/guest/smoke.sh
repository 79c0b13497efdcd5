#!/bin/bash
# Smoke test of the test guest with STOCK rdma-core 44 (the system's libibverbs / librdmacm, no LD_LIBRARY_PATH):
#   ibv_devices       lists rxe0 and rxe1
#   ibv_rc_pingpong   server on rxe0, client on rxe1 -> 198.18.0.1 (RoCE v2, IPv4 GID); both exit 0
#   rping             rdma_cm: server on 198.18.0.1 (rxe0), client from 198.18.0.2 (rxe1); both exit 0
# Prints one "PASS name (...)" / "FAIL name: reason" line per check and "smoke: N passed, N failed"; exits 1 if any
# check failed. Every program runs under `timeout`.
#
#   tests/guest/run -- tests/guest/smoke.sh
set -u
unset LD_LIBRARY_PATH LD_PRELOAD

CASE_TIMEOUT=${SMOKE_TIMEOUT:-60}   # per program
WORK=$(mktemp -d /tmp/smoke.XXXXXX) || { echo "FAIL smoke-setup: mktemp"; exit 1; }
trap 'rm -rf "$WORK"' EXIT
source "$(dirname "$0")/lib/testlib.sh"   # pass/fail/now/dur/wait_tcp_listen, $DEV0.. $GID1, $T

# --- ibv_devices ----------------------------------------------------------------------------------------------------
t0=$(now)
if timeout "$T" ibv_devices > "$WORK/devices.log" 2>&1; then
    if grep -qw "$DEV0" "$WORK/devices.log" && grep -qw "$DEV1" "$WORK/devices.log"; then
        pass ibv_devices "$(dur "$t0" "$(now)"): $DEV0 $DEV1"
    else
        fail ibv_devices "$DEV0 and $DEV1 not both listed" "$WORK/devices.log"
    fi
else
    fail ibv_devices "ibv_devices exited $?" "$WORK/devices.log"
fi

# --- ibv_rc_pingpong ------------------------------------------------------------------------------------------------
PORT=18515
t0=$(now)
timeout "$T" ibv_rc_pingpong -d "$DEV0" -g "$GID0" -p "$PORT" > "$WORK/pp-server.log" 2>&1 &
spid=$!
if ! wait_tcp_listen "$PORT" "$T"; then
    kill "$spid" 2>/dev/null; wait "$spid"
    fail ibv_rc_pingpong "server never listened on port $PORT" "$WORK/pp-server.log"
else
    timeout "$T" ibv_rc_pingpong -d "$DEV1" -g "$GID1" -p "$PORT" "$IP0" > "$WORK/pp-client.log" 2>&1
    crc=$?
    wait "$spid"
    src=$?
    t1=$(now)
    if (( crc == 0 && src == 0 )) && grep -q 'bytes in' "$WORK/pp-client.log"; then
        pass ibv_rc_pingpong "$(dur "$t0" "$t1"): $(grep -m1 'bytes in' "$WORK/pp-client.log")"
    else
        why="client exit $crc, server exit $src"
        (( crc == 124 || src == 124 )) && why+=" (124 = killed by timeout ${T}s)"
        fail ibv_rc_pingpong "$why" "$WORK/pp-server.log" "$WORK/pp-client.log"
    fi
fi

# --- rping (rdma_cm) ------------------------------------------------------------------------------------------------
PORT=7174
t0=$(now)
timeout "$T" rping -s -a "$IP0" -p "$PORT" -C 10 -S 64 > "$WORK/rping-server.log" 2>&1 &
spid=$!
crc=1
for attempt in 1 2 3 4 5 6 7 8 9 10; do
    sleep 0.3   # the rdma_cm listener is not visible in /proc; retry while the server is starting
    timeout "$T" rping -c -a "$IP0" -I "$IP1" -p "$PORT" -C 10 -S 64 -v > "$WORK/rping-client.log" 2>&1
    crc=$?
    (( crc == 0 )) && break
    kill -0 "$spid" 2>/dev/null || break
done
if (( crc != 0 )); then kill "$spid" 2>/dev/null; fi
wait "$spid"
src=$?
t1=$(now)
npings=$(grep -c 'ping data' "$WORK/rping-client.log")
if (( crc == 0 && src == 0 && npings == 10 )); then
    pass rping "$(dur "$t0" "$t1"): 10 pings $IP1 -> $IP0, attempt $attempt"
else
    fail rping "client exit $crc, server exit $src, $npings/10 pings" "$WORK/rping-server.log" "$WORK/rping-client.log"
fi

echo "smoke: $passed passed, $failed failed"
(( failed == 0 ))
