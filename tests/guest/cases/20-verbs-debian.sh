#!/bin/bash
# Debian's unmodified verbs binaries (ibverbs-utils, perftest) doing real work over Soft-RoCE with OUR libibverbs:
# server on rxe0, client on rxe1 -> 198.18.0.1, every program under `timeout`. A pair passes only when both sides
# exit 0 and the output shows the work was done (pingpong's "bytes in" on both sides, perftest's result row).
#
#   ibv_devices, ibv_devinfo -v (compared line by line with rdma-core's), ibv_rc_pingpong (plain, -e, -N, -c),
#   ibv_uc_pingpong, ibv_ud_pingpong, ibv_srq_pingpong, ibv_asyncwatch (port down/up on rxe1),
#   ib_{send,write,read,atomic}_{lat,bw} (TCP exchange), mixed pairs (our client with rdma-core's server and the
#   reverse), LD_PRELOAD instead of LD_LIBRARY_PATH, and what rdma-core itself cannot do on rxe
#   (ibv_xsrq_pingpong: no XRC; ibv_rc_pingpong -t: no completion timestamps): we must fail the same way.
#
# CASE_LIBS=stock runs every "ours" side with the system's rdma-core 44, to validate the case itself:
#   tests/guest/run --timeout 900 -e CASE_LIBS=stock -- bash tests/guest/cases/20-verbs-debian.sh
set -u
source "$(dirname "$0")/../lib/testlib.sh"
T=${CASE_TIMEOUT:-120}   # per program; a loaded host slows the TCG guest a lot
NETDEV1=${RDMA_TEST_NETDEV1:-veth1}
OURS_=$(libs ours) PRELOAD_=$(libs preload)
case_t0=$(now)
echo "# 20-verbs-debian: ours = $OURS_ (CASE_LIBS=$CASE_LIBS), preload = $PRELOAD_"

PINGPONG_RE='[0-9]+ bytes in [0-9.]+ seconds'
PP_N=100                                        # pingpong iterations (default 1000): busy-polling pairs are slow
# perftest's result row ("#bytes #iterations ..."). Under a loaded TCG host perftest's own clock calibration can
# fail and print "inf" for the times although every iteration completed (seen with stock rdma-core too), so the
# row may hold inf; both sides' exit status 0 is what says the iterations completed.
PERF_RE='^ *[0-9]+ +[0-9]+ +([0-9.]+|inf) +([0-9.]+|inf)'
N=200                                           # perftest iterations: enough to prove the path, cheap under TCG

# Which library each mode really loads (a missing build/lib would otherwise mean silently testing rdma-core).
libs_check libs-ours "$OURS_" /usr/bin/ibv_rc_pingpong
libs_check libs-preload "$PRELOAD_" /usr/bin/ib_write_bw

# ---- ibv_devices -----------------------------------------------------------------------------------------------------
t0=$(now)
# shellcheck disable=SC2046
env $(libenv "$OURS_") timeout "$T" ibv_devices > "$WORK/devices.log" 2>&1
rc=$?
if (( rc == 0 )) && grep -Eq "^[[:space:]]+$DEV0[[:space:]]+[0-9a-f]{16}$" "$WORK/devices.log" &&
   grep -Eq "^[[:space:]]+$DEV1[[:space:]]+[0-9a-f]{16}$" "$WORK/devices.log"; then
    pass ibv_devices "$(dur "$t0" "$(now)"): $DEV0 $DEV1 with GUIDs"
else
    fail ibv_devices "exit $rc, or $DEV0/$DEV1 not listed with a GUID" "$WORK/devices.log"
fi

# ---- ibv_devinfo -v: field by field against rdma-core -----------------------------------------------------------------
# Both runs read the same kernel state back to back, so every line must be equal; nothing is normalised (two stock
# runs were measured identical). If they differ, a second stock run tells whether the difference is ours.
t0=$(now)
timeout "$T" ibv_devinfo -v > "$WORK/devinfo.stock" 2>&1; src=$?
# shellcheck disable=SC2046
env $(libenv "$OURS_") timeout "$T" ibv_devinfo -v > "$WORK/devinfo.ours" 2>&1; orc=$?
nlines=$(grep -c . "$WORK/devinfo.stock")
if (( src != 0 || orc != 0 )); then
    fail ibv_devinfo-v "exit status stock $src, ours $orc" "$WORK/devinfo.ours"
elif diff -q "$WORK/devinfo.stock" "$WORK/devinfo.ours" > /dev/null; then
    pass ibv_devinfo-v "$(dur "$t0" "$(now)"): $nlines lines identical to rdma-core's"
else
    timeout "$T" ibv_devinfo -v > "$WORK/devinfo.stock2" 2>&1
    stable=$(diff -q "$WORK/devinfo.stock" "$WORK/devinfo.stock2" > /dev/null && echo "stock is stable" ||
             echo "NOTE: two stock runs differ too")
    diff -U0 "$WORK/devinfo.stock" "$WORK/devinfo.ours" | grep -E '^[-+][^-+]' > "$WORK/devinfo.diff"
    fail ibv_devinfo-v "$(grep -c '^+' "$WORK/devinfo.diff") lines differ from rdma-core's ($stable); - stock, + ours" \
        "$WORK/devinfo.diff"
fi

# ---- ibverbs-utils pingpongs -----------------------------------------------------------------------------------------
# pingpong NAME PORT PROGRAM [OPTIONS...]: server and client with the same options, both ours.
pingpong() {
    local name=$1 port=$2 prog=$3; shift 3
    pair2 "$name" "$OURS_" "$OURS_" "$port" \
        "$prog -d $DEV0 -g $GID0 -p $port -n $PP_N $*" "$prog -d $DEV1 -g $GID1 -p $port -n $PP_N $* $IP0" \
        "$PINGPONG_RE" "$PINGPONG_RE" 'invalid data|Couldn.t|[Ff]ailed'
}
pingpong rc_pingpong 18710 ibv_rc_pingpong
pingpong rc_pingpong-e 18711 ibv_rc_pingpong -e
pingpong rc_pingpong-N 18712 ibv_rc_pingpong -N
pingpong rc_pingpong-c 18713 ibv_rc_pingpong -c
pingpong uc_pingpong 18714 ibv_uc_pingpong
pingpong ud_pingpong 18715 ibv_ud_pingpong -s 512          # UD messages must fit the 1024-byte path MTU
pingpong srq_pingpong 18716 ibv_srq_pingpong

# ---- perftest (TCP exchange of QP data, i.e. no -R) ------------------------------------------------------------------
# The client always prints the result row, and so does the server (perftest 4.5), except in ib_read_lat and
# ib_atomic_lat where the server is passive and prints none (measured).
perf_server_re() { case $1 in ib_read_lat|ib_atomic_lat) ;; *) echo "$PERF_RE" ;; esac; }
perf() {   # perf NAME PORT SERVER_LIBS CLIENT_LIBS PROGRAM [OPTIONS...]
    local name=$1 port=$2 sl=$3 cl=$4 prog=$5; shift 5
    pair2 "$name" "$sl" "$cl" "$port" \
        "$prog -d $DEV0 -x $GID0 -n $N -p $port $*" "$prog -d $DEV1 -x $GID1 -n $N -p $port $* $IP0" \
        "$PERF_RE" "$(perf_server_re "$prog")" 'Couldn.t|[Ff]ailed|[Ee]rror'
}
port=18720
for p in ib_send_lat ib_write_lat ib_read_lat ib_atomic_lat ib_send_bw ib_write_bw ib_read_bw ib_atomic_bw; do
    perf "$p" "$port" "$OURS_" "$OURS_" "$p"
    port=$((port + 1))
done

# ---- mixed: our client against rdma-core's server, and the reverse ---------------------------------------------------
mixed() {   # mixed NAME PORT PROGRAM KIND [OPTIONS...]   (KIND: pingpong | perf)
    local name=$1 port=$2 prog=$3 kind=$4; shift 4
    local who s c
    for who in client server; do
        if [[ $who == client ]]; then s=stock c=$OURS_; else s=$OURS_ c=stock; fi
        local tag="mixed-$name-ours-$who"
        if [[ $kind == pingpong ]]; then
            pair2 "$tag" "$s" "$c" "$port" "$prog -d $DEV0 -g $GID0 -p $port -n $PP_N $*" \
                "$prog -d $DEV1 -g $GID1 -p $port -n $PP_N $* $IP0" "$PINGPONG_RE" "$PINGPONG_RE" \
                'invalid data|Couldn.t|[Ff]ailed'
        else
            pair2 "$tag" "$s" "$c" "$port" "$prog -d $DEV0 -x $GID0 -n $N -p $port $*" \
                "$prog -d $DEV1 -x $GID1 -n $N -p $port $* $IP0" "$PERF_RE" "$(perf_server_re "$prog")" \
                'Couldn.t|[Ff]ailed|[Ee]rror'
        fi
        port=$((port + 1))
    done
}
mixed rc_pingpong 18730 ibv_rc_pingpong pingpong
mixed ud_pingpong 18732 ibv_ud_pingpong pingpong -s 512
mixed ib_write_bw 18734 ib_write_bw perf
mixed ib_send_lat 18736 ib_send_lat perf

# ---- LD_PRELOAD instead of LD_LIBRARY_PATH -------------------------------------------------------------------------------
pair2 preload-rc_pingpong "$PRELOAD_" "$PRELOAD_" 18740 \
    "ibv_rc_pingpong -d $DEV0 -g $GID0 -p 18740 -n $PP_N" "ibv_rc_pingpong -d $DEV1 -g $GID1 -p 18740 -n $PP_N $IP0" \
    "$PINGPONG_RE" "$PINGPONG_RE" 'invalid data|Couldn.t|[Ff]ailed'
pair2 preload-ib_write_bw "$PRELOAD_" "$PRELOAD_" 18741 \
    "ib_write_bw -d $DEV0 -x $GID0 -n $N -p 18741" "ib_write_bw -d $DEV1 -x $GID1 -n $N -p 18741 $IP0" \
    "$PERF_RE" "" 'Couldn.t|[Ff]ailed|[Ee]rror'

# ---- what rdma-core cannot do on rxe: we must fail the same way -----------------------------------------------------------
# same_failure NAME CMD...: runs CMD with rdma-core, then with ours; passes when rdma-core fails (the premise) and
# ours exits with the same status and prints the same lines. Measured with rdma-core 44 on the 6.1 guest:
#   ibv_xsrq_pingpong       exit 1, "Couldn't Open the XRC Domain 95"   (ibv_open_xrcd: EOPNOTSUPP)
#   ibv_rc_pingpong -t      exit 1, "The device isn't completion timestamp capable"
# (both the server and the client stop there, before any connection).
same_failure() {
    local name=$1; shift
    local t0 src orc
    t0=$(now)
    timeout 20 "$@" > "$WORK/$name.stock" 2>&1; src=$?
    # shellcheck disable=SC2046
    env $(libenv "$OURS_") timeout 20 "$@" > "$WORK/$name.ours" 2>&1; orc=$?
    if (( src == 0 )); then
        fail "$name" "rdma-core succeeded: the premise of this check changed, measure again" "$WORK/$name.stock"
    elif (( src != orc )); then
        fail "$name" "exit status $orc, rdma-core's $src" "$WORK/$name.stock" "$WORK/$name.ours"
    elif ! diff -q "$WORK/$name.stock" "$WORK/$name.ours" > /dev/null; then
        diff -U0 "$WORK/$name.stock" "$WORK/$name.ours" | grep -E '^[-+][^-+]' > "$WORK/$name.diff"
        fail "$name" "same exit status $src, different output (- rdma-core, + ours)" "$WORK/$name.diff"
    else
        pass "$name" "$(dur "$t0" "$(now)"): both exit $src: $(head -1 "$WORK/$name.ours")"
    fi
}
same_failure same-failure-xsrq_pingpong-server ibv_xsrq_pingpong -d "$DEV0" -g "$GID0" -p 18750
same_failure same-failure-xsrq_pingpong-client ibv_xsrq_pingpong -d "$DEV1" -g "$GID1" -p 18750 "$IP0"
same_failure same-failure-rc_pingpong-t-server ibv_rc_pingpong -d "$DEV0" -g "$GID0" -p 18751 -t
same_failure same-failure-rc_pingpong-t-client ibv_rc_pingpong -d "$DEV1" -g "$GID1" -p 18751 -t "$IP0"

# ---- ibv_asyncwatch: rxe1's port goes down and up (veth1 down/up) -- last, since it disturbs the link ---------------------
t0=$(now)
aw="$WORK/asyncwatch.log"
# shellcheck disable=SC2046
env $(libenv "$OURS_") timeout "$T" ibv_asyncwatch -d "$DEV1" > "$aw" 2>&1 &
awpid=$!
why=""
if ! wait_file_match "$aw" "^$DEV1: async event FD [0-9]+" 10; then
    why="asyncwatch did not start"
else
    ip link set "$NETDEV1" down
    wait_file_match "$aw" 'event_type IBV_EVENT_PORT_ERR \(10\), port 1$' 10 || why+="no PORT_ERR event; "
    ip link set "$NETDEV1" up
    wait_file_match "$aw" 'event_type IBV_EVENT_PORT_ACTIVE \(9\), port 1$' 15 || why+="no PORT_ACTIVE event; "
fi
ip link set "$NETDEV1" up 2>/dev/null
if kill -0 "$awpid" 2>/dev/null; then
    kill "$awpid"; wait "$awpid"
else
    wait "$awpid"; why+="asyncwatch exited by itself (status $?); "
fi
wait_port_active "$DEV0" 15 && wait_port_active "$DEV1" 15 || why+="ports not ACTIVE again after 15 s; "
if [[ -z $why ]]; then
    pass ibv_asyncwatch "$(dur "$t0" "$(now)"): $(grep -c event_type "$aw") events on $DEV1: PORT_ERR then PORT_ACTIVE"
else
    fail ibv_asyncwatch "$why" "$aw"
fi

echo "# 20-verbs-debian took $(dur "$case_t0" "$(now)")"
summary verbs-debian
(( failed == 0 ))
