#!/bin/bash
# RDMAV_STATS=1 (docs/diagnostics.md, "Counters"): the counters of a pingpong of known length, the ibv_stats tool
# reading a live process, the file removed at exit, the totals printed at exit for a context never closed, and
# nothing at all (no file, no log line) with RDMAV_STATS unset.
#
# Debian's unmodified ibv_rc_pingpong -n N -r R over our libraries, server on rxe0, client on rxe1. Each side, from
# its source (rdma-core 44, libibverbs/examples/rc_pingpong.c):
#   * receives: R posted before the connection, then each time the outstanding count falls to 1 (after R-1
#     receive completions) R-1 more: R + floor(N / (R-1)) * (R-1) receive WRs, one ibv_post_recv call each;
#   * sends: exactly N (one ibv_post_send each; Soft-RoCE rings one doorbell per call);
#   * completions: N send + N receive = 2N, all successful.
# With N=100, R=20: 115 receive WRs, 100 sends, 100 doorbells, 215 post calls, 200 completions, 0 errors.
set -u
source "$(dirname "$0")/../lib/testlib.sh"
T=${CASE_TIMEOUT:-120}
OURS_=$(libs ours)
STATS_TOOL=$REPO/build/examples/ibv_stats
N=100 R=20
WANT_RECV=$(( R + (N / (R - 1)) * (R - 1) ))
case_t0=$(now)
echo "# 27-stats: ours = $OURS_ (CASE_LIBS=$CASE_LIBS), ibv_rc_pingpong -n $N -r $R: expect send_wrs=$N recv_wrs=$WANT_RECV cqes=$((2 * N))"

if [[ $OURS_ == stock ]]; then
    echo "# 27-stats: RDMAV_STATS is ours alone; nothing to validate against rdma-core"
    pass stats-stock "skipped under CASE_LIBS=stock"
    summary stats; exit 0
fi

# counter LINE NAME : the value of NAME=value in a stats log line.
counter() { sed -n "s/.* $2=\([-0-9]*\).*/\1/p" <<< "$1"; }

# expect_line NAME LOG REGEX "name=value ..." : the first line of LOG matching REGEX has every name=value.
expect_line() {
    local name=$1 log=$2 re=$3 want=$4 line kv got bad=""
    line=$(grep -Em1 -- "$re" "$log")
    if [[ -z $line ]]; then fail "$name" "no line /$re/ in ${log##*/}" "$log"; return; fi
    for kv in $want; do
        got=$(counter "$line" "${kv%%=*}")
        [[ $got == "${kv#*=}" ]] || bad+="${kv%%=*}=$got (want ${kv#*=}) "
    done
    if [[ -z $bad ]]; then pass "$name" "$want"; else fail "$name" "$bad; line: $line" "$log"; fi
}

# ---- a pingpong of known length, counted, with the tool reading the live server ----------------------------------------
# run_counted TAG PORT EXTRA_ENV [PINGPONG_FLAGS] : server and client with RDMAV_STATS=1, each with its own stats
# directory and log.
run_counted() {
    local tag=$1 port=$2 extra=$3 flags=${4:-} sdir cdir slog clog svlog cvlog spid crc src tool
    sdir=$(mktemp -d) cdir=$(mktemp -d)
    slog=$WORK/$tag.server.log clog=$WORK/$tag.client.log svlog=$WORK/$tag.server.vlog cvlog=$WORK/$tag.client.vlog
    tool=$WORK/$tag.tool.log
    # shellcheck disable=SC2046,SC2086
    env $(libenv "$OURS_") $extra RDMAV_STATS=1 RDMAV_STATS_DIR="$sdir" VERBS_LOG_FILE="$svlog" \
        timeout "$T" ibv_rc_pingpong -d "$DEV0" -g "$GID0" -p "$port" -n "$N" -r "$R" $flags > "$slog" 2>&1 &
    spid=$!
    if ! wait_tcp_listen "$port" "$T"; then
        kill "$spid" 2>/dev/null; wait "$spid"
        fail "$tag-pingpong" "server never listened on port $port" "$slog" "$svlog"
        return
    fi
    # The server is waiting for its peer: its receives are posted, its counter file is there.
    env LD_LIBRARY_PATH="$OURS" timeout "$T" "$STATS_TOOL" -d "$sdir" > "$tool" 2>&1
    local trc=$?
    if (( trc == 0 )) && grep -Eq '^pid [0-9]+ \(' "$tool" && grep -Eq "^  context [0-9]+: $DEV0\$" "$tool" &&
       grep -Eq "^[[:space:]]+recv_wrs[[:space:]]+$R\$" "$tool" && grep -Eq '^    qp 0x[0-9a-f]+:$' "$tool" &&
       grep -Eq "^[[:space:]]+send_wrs[[:space:]]+0\$" "$tool"; then
        pass "$tag-tool-live" "ibv_stats read the waiting server: $DEV0, its QP, recv_wrs $R, send_wrs 0"
    else
        fail "$tag-tool-live" "ibv_stats exit $trc or no context $DEV0 / recv_wrs $R / qp" "$tool"
    fi
    # shellcheck disable=SC2046,SC2086
    env $(libenv "$OURS_") $extra RDMAV_STATS=1 RDMAV_STATS_DIR="$cdir" VERBS_LOG_FILE="$cvlog" \
        timeout "$T" ibv_rc_pingpong -d "$DEV1" -g "$GID1" -p "$port" -n "$N" -r "$R" $flags "$IP0" > "$clog" 2>&1
    crc=$?
    (( crc != 0 )) && kill "$spid" 2>/dev/null
    wait "$spid"
    src=$?
    if (( crc != 0 || src != 0 )); then
        fail "$tag-pingpong" "client exit $crc, server exit $src" "$slog" "$clog" "$svlog" "$cvlog"
        rm -rf "$sdir" "$cdir"
        return
    fi
    pass "$tag-pingpong" "$(grep -Em1 'bytes in' "$clog")"
    # What a reader sees: the tool's snapshot of the waiting server, and the server's log lines.
    sed 's/^/# tool: /' "$tool"
    grep 'stats:' "$svlog" | sed 's/^/# log: /'
    local doorbells=$N
    [[ $extra == *RDMAV_PROVIDER=plugin* ]] && doorbells=-
    local side log
    for side in server client; do
        log=$WORK/$tag.$side.vlog
        expect_line "$tag-$side-totals" "$log" 'stats: rxe[0-9]+ context [0-9]+ totals \(ibv_close_device' \
            "send_wrs=$N recv_wrs=$WANT_RECV srq_recv_wrs=0 post_calls=$((N + WANT_RECV)) post_errors=0 doorbells=$doorbells cqes=$((2 * N)) err_cqes=0"
        expect_line "$tag-$side-qp" "$log" 'stats: rxe[0-9]+ qp 0x[0-9a-f]+ \(destroyed\)' \
            "send_wrs=$N recv_wrs=$WANT_RECV doorbells=$doorbells cqes=0"
        expect_line "$tag-$side-cq" "$log" 'stats: rxe[0-9]+ cq [0-9]+ \(destroyed\)' \
            "send_wrs=0 cqes=$((2 * N)) err_cqes=0"
        if [[ $flags == *-e* ]]; then
            # Sleeping on events: one ibv_req_notify_cq before the loop, then one per completion event.
            local line ev
            line=$(grep -Em1 'stats: rxe[0-9]+ cq [0-9]+ \(destroyed\)' "$log")
            ev=$(counter "$line" comp_events)
            expect_line "$tag-$side-events" "$log" 'stats: rxe[0-9]+ cq [0-9]+ \(destroyed\)' \
                "comp_events=$ev notify_calls=$((ev + 1))"
            (( ev > 0 )) || fail "$tag-$side-events-some" "no completion event counted" "$log"
        fi
    done
    local left
    left=$(ls -A "$sdir" "$cdir" | grep -c rdma-core-rs-stats)
    if (( left == 0 )); then pass "$tag-file-removed" "no counter file left after exit"
    else fail "$tag-file-removed" "$left counter file(s) left in $sdir $cdir"; fi
    rm -rf "$sdir" "$cdir"
}

run_counted stats-rxe 18770 ""
# The ibv_wr_* builders (-N: ibv_wr_start/ibv_wr_send/ibv_wr_complete) and completion events (-e).
run_counted stats-rxe-N-e 18773 "" "-N -e"
# rdma-core's own C rxe provider, loaded as a plug-in: the same counts (its doorbells are its own: "-").
run_counted stats-plugin 18771 "RDMAV_PROVIDER=plugin"

# ---- a context never closed: its totals at exit -------------------------------------------------------------------------
t0=$(now)
xdir=$(mktemp -d)
xlog=$WORK/exit.vlog
env LD_LIBRARY_PATH="$OURS" RDMAV_STATS=1 RDMAV_STATS_DIR="$xdir" VERBS_LOG_FILE="$xlog" timeout "$T" python3 -c '
import ctypes, sys
v = ctypes.CDLL("libibverbs.so.1")
v.ibv_get_device_list.restype = ctypes.POINTER(ctypes.c_void_p)
v.ibv_open_device.restype = ctypes.c_void_p
v.ibv_open_device.argtypes = [ctypes.c_void_p]
devs = v.ibv_get_device_list(None)
ctx = v.ibv_open_device(devs[0])
sys.exit(0 if ctx else 1)
' > "$WORK/exit.out" 2>&1
rc=$?
if (( rc == 0 )) && grep -Eq 'stats: [a-z]+[0-9]+ context [0-9]+ totals \(exit, pid [0-9]+\): send_wrs=0' "$xlog" &&
   [[ -z $(ls -A "$xdir") ]]; then
    pass stats-at-exit "$(dur "$t0" "$(now)"): totals printed at exit for a context never closed, file removed"
else
    fail stats-at-exit "exit $rc, no 'totals (exit' line, or the file was left" "$xlog" "$WORK/exit.out"
fi
rm -rf "$xdir"

# ---- RDMAV_STATS unset: no file, no line ---------------------------------------------------------------------------------
t0=$(now)
odir=$(mktemp -d)
port=18772
# shellcheck disable=SC2046
env $(libenv "$OURS_") RDMAV_STATS_DIR="$odir" VERBS_LOG_FILE="$WORK/off.server.vlog" \
    timeout "$T" ibv_rc_pingpong -d "$DEV0" -g "$GID0" -p "$port" -n "$N" -r "$R" > "$WORK/off.server.log" 2>&1 &
spid=$!
if wait_tcp_listen "$port" "$T"; then
    during=$(ls -A "$odir"; ls /dev/shm | grep rdma-core-rs-stats)
    # shellcheck disable=SC2046
    env $(libenv "$OURS_") RDMAV_STATS_DIR="$odir" VERBS_LOG_FILE="$WORK/off.client.vlog" \
        timeout "$T" ibv_rc_pingpong -d "$DEV1" -g "$GID1" -p "$port" -n "$N" -r "$R" "$IP0" > "$WORK/off.client.log" 2>&1
    crc=$?
    (( crc != 0 )) && kill "$spid" 2>/dev/null
    wait "$spid"; src=$?
    lines=$(cat "$WORK"/off.*.vlog 2>/dev/null | grep -c 'stats:')
    if (( crc == 0 && src == 0 )) && [[ -z $during ]] && (( lines == 0 )) && [[ -z $(ls -A "$odir") ]]; then
        pass stats-off "$(dur "$t0" "$(now)"): pingpong passed, no counter file (in $odir or /dev/shm), no stats line"
    else
        fail stats-off "client $crc, server $src, files during the run: '${during}', stats lines: $lines" \
            "$WORK/off.server.log" "$WORK/off.client.log" "$WORK/off.server.vlog"
    fi
else
    kill "$spid" 2>/dev/null; wait "$spid"
    fail stats-off "server never listened on port $port" "$WORK/off.server.log"
fi
rm -rf "$odir"

# ---- the counting ops are transparent: our verbs conformance tests pass with RDMAV_STATS=1 -------------------------------
# tests/out/c/verbs_*.c (case 25's programs: every verb, extended CQs and QPs, SRQs, errors, async events, misuse)
# under RDMAV_STATS=1 must pass exactly as without it, and log their contexts' totals (verbs_explain points
# VERBS_LOG_FILE at a file of its own: not judged). Their forked children end with _exit (testutil.h), which runs no
# exit hook: their counter files are left, as documented, and removed here.
BIN=$REPO/tests/out/c
for src in "$REPO"/tests/c/verbs_*.c; do
    p=$(basename "$src" .c) exe=$BIN/$(basename "$src" .c)
    if [[ ! -x $exe ]]; then fail "stats-transparent/$p" "$exe not built (tests/c/compile.sh)"; continue; fi
    t0=$(now) tdir=$(mktemp -d)
    RDMAV_STATS=1 RDMAV_STATS_DIR="$tdir" VERBS_LOG_FILE="$WORK/$p.stats.vlog" RDMA_TEST_TIMEOUT=$((T - 10)) \
        timeout "$T" "$exe" > "$WORK/$p.stats.log" 2>&1
    rc=$?
    np=$(grep -c '^PASS ' "$WORK/$p.stats.log") nf=$(grep -c '^FAIL ' "$WORK/$p.stats.log")
    nt=$(cat "$WORK/$p.stats.vlog" 2>/dev/null | grep -c 'stats: .* totals (ibv_close_device')
    [[ $p == verbs_explain ]] && nt=own-log
    if (( rc == 0 && nf == 0 && np > 0 )) && [[ $nt != 0 ]]; then
        pass "stats-transparent/$p" "$(dur "$t0" "$(now)"): $np checks passed with RDMAV_STATS=1, $nt context(s) logged"
    else
        fail "stats-transparent/$p" "exit $rc, $np passed, $nf failed, $nt totals line(s)" \
            "$WORK/$p.stats.log" "$WORK/$p.stats.vlog"
    fi
    rm -rf "$tdir"
done

# Error completions by status: verbs_qp moves a QP with a receive posted to ERR and polls its flush
# (IBV_WC_WR_FLUSH_ERR, status 5), and posts a send in INIT (EINVAL): its log must show them, and in every line of
# every program err_cqes must equal the sum of the wc_status_N counts.
t0=$(now)
qlog=$WORK/verbs_qp.stats.vlog
bad=$(cat "$WORK"/verbs_*.stats.vlog 2>/dev/null | grep 'stats:' | awk '{
    e = -1; sum = 0
    for (i = 1; i <= NF; i++) {
        if ($i ~ /^err_cqes=/) { split($i, a, "="); e = a[2] }
        if ($i ~ /^wc_status_[0-9]+=/) { split($i, a, "="); sum += a[2] }
    }
    if (e != sum) print }' | head -3)
if [[ -z $bad ]] && grep -Eq 'stats: rxe[01] cq [0-9]+ .* err_cqes=[1-9][0-9]*.* wc_status_5=[1-9][0-9]* \(Work Request Flushed Error\)' "$qlog" &&
   grep -Eq 'stats: rxe[01] qp 0x[0-9a-f]+ .* post_errors=[1-9]' "$qlog"; then
    pass stats-error-statuses "$(dur "$t0" "$(now)"): $(grep -Eo 'wc_status_5=[0-9]+ \(Work Request Flushed Error\)' "$qlog" | head -1) on a CQ of verbs_qp, post_errors counted, err_cqes = sum of statuses in every line"
else
    fail stats-error-statuses "no flushed completion by status or post error in verbs_qp's log, or err_cqes != sum: ${bad:-}" "$qlog"
fi

# ---- set-uid: RDMAV_STATS_DIR ignored (the file goes to /dev/shm) ---------------------------------------------------------
# A root-owned copy of build/examples/verbs_pingpong (RUNPATH to our build/lib, which a set-uid program keeps) run as
# nobody, as a server waiting for its peer (its context open); a 0755 copy is the control (the directory honoured).
# setuid_stats TAG MODE : runs the copy, waits for its TCP port, lists the files; sets SU_DIR_FILES / SU_SHM_FILES.
setuid_stats() {
    local tag=$1 mode=$2 copy=/tmp/su-stats.$1 port=$3 spid
    SU_DIR_FILES="" SU_SHM_FILES="" SU_LISTENED=0
    rm -rf /tmp/su-stats-dir; mkdir -p /tmp/su-stats-dir && chmod 1777 /tmp/su-stats-dir
    cp "$REPO/build/examples/verbs_pingpong" "$copy" && chown root:root "$copy" && chmod "$mode" "$copy"
    RDMAV_STATS=1 RDMAV_STATS_DIR=/tmp/su-stats-dir timeout "$T" setpriv --reuid=65534 --regid=65534 --clear-groups \
        "$copy" -d "$DEV0" -g "$GID0" -p "$port" > "$WORK/su-stats.$tag.log" 2>&1 &
    spid=$!
    if wait_tcp_listen "$port" "$T"; then
        SU_LISTENED=1
        SU_DIR_FILES=$(ls -A /tmp/su-stats-dir)
        SU_SHM_FILES=$(cd /dev/shm && ls -l rdma-core-rs-stats.* 2>/dev/null | awk '{print $1, $3, $NF}')
    fi
    kill "$spid" 2>/dev/null; wait "$spid" 2>/dev/null
    # Killed by a signal: no exit hook ran, so the files are left; remove them.
    rm -f /dev/shm/rdma-core-rs-stats.* /tmp/su-stats-dir/* "$copy"
}
if ! command -v setpriv > /dev/null; then
    fail stats-setuid "no setpriv in the guest"
else
    setuid_stats control 0755 18775
    if (( SU_LISTENED )) && [[ $SU_DIR_FILES == rdma-core-rs-stats.* && -z $SU_SHM_FILES ]]; then
        pass stats-setuid-control "not set-uid: RDMAV_STATS_DIR honoured ($SU_DIR_FILES)"
    else
        fail stats-setuid-control "listened $SU_LISTENED, dir '$SU_DIR_FILES', /dev/shm '$SU_SHM_FILES'" "$WORK/su-stats.control.log"
    fi
    setuid_stats setuid 4755 18776
    if (( SU_LISTENED )) && [[ -z $SU_DIR_FILES && $SU_SHM_FILES == "-rw------- root rdma-core-rs-stats."* ]]; then
        pass stats-setuid "set-uid, as nobody: RDMAV_STATS_DIR ignored, $SU_SHM_FILES"
    else
        fail stats-setuid "listened $SU_LISTENED, dir '$SU_DIR_FILES', /dev/shm '$SU_SHM_FILES'" "$WORK/su-stats.setuid.log"
    fi
fi

# ---- Soft-iWARP: siw's doorbells (rung only when its send queue was idle) --------------------------------------------
# rping -C 10 over siw0/siw1 with RDMAV_STATS=1 on both sides (the links replaced as in case 60, then restored). The
# exact counts depend on rping's protocol and timing; what must hold: the QP posted, its doorbells are counted
# (a number, not "-"), at least one and at most one per post call.
source "$(dirname "$0")/../setup-siw.sh"
if ! siw_setup; then
    fail stats-siw-setup "$SIW_SETUP_ERROR"
else
    p=18778
    CM_WAIT_PORT=$p cm_pair stats-siw-rping "$OURS_" "$OURS_" \
        "env RDMAV_STATS=1 VERBS_LOG_FILE=$WORK/siw.server.vlog rping -s -v -a $IP0 -p $p -C 10" \
        "env RDMAV_STATS=1 VERBS_LOG_FILE=$WORK/siw.client.vlog rping -c -v -a $IP0 -I $IP1 -p $p -C 10" \
        'ping data: rdma-ping-9: ' 'server ping data: rdma-ping-9: '
    for side in server client; do
        line=$(grep -E 'stats: siw[01] qp 0x[0-9a-f]+ \(destroyed\)' "$WORK/siw.$side.vlog" 2>/dev/null |
               grep -Ev ' send_wrs=0 ' | head -1)
        sw=$(counter "$line" send_wrs) db=$(counter "$line" doorbells) pc=$(counter "$line" post_calls)
        if [[ -n $line && $db =~ ^[0-9]+$ ]] && (( sw > 0 && db > 0 && db <= pc )); then
            pass "stats-siw-$side-doorbells" "send_wrs=$sw post_calls=$pc doorbells=$db"
        else
            fail "stats-siw-$side-doorbells" "want 0 < doorbells <= post_calls; line: '${line:-none}'" "$WORK/siw.$side.vlog"
        fi
    done
fi
siw_teardown

echo "# 27-stats took $(dur "$case_t0" "$(now)")"
summary stats
(( failed == 0 ))
