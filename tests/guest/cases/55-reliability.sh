#!/bin/bash
# Reliability checks that need more than one of our C conformance programs (the misuse checks themselves live in
# tests/c/verbs_misuse.c, case 25, and tests/c/cm_params.c, case 35):
#
#  * errno/*: tests/c/rel_errno: calls on destroyed, garbage or closed handles (completion and event channels, a
#    closed context, objects whose handle the kernel does not know) answer with rdma-core 44's errno (EBADF, ENOENT),
#    each case in a forked child. Run against ours and, as the reference, against the system's rdma-core.
#  * setuid/*: a set-uid-root copy of tests/c/rel_setuid run as nobody (setpriv) is an AT_SECURE process: with
#    VERBS_LOG_LEVEL=4 VERBS_LOG_FILE=<file> our libraries must not create the file, SYSFS_PATH must not move
#    sysfs, and RDMAV_DRIVERS=/tmp/su-logs/evil (with RDMAV_PROVIDER=plugin, so that plug-ins are loaded) must not
#    make them try /tmp/su-logs/evil-rdmav34.so (seen in the debug log). The same program without set-uid does create it (the variable works). rdma-core's behaviour (it creates
#    the log file even set-uid, as root) is recorded as a comparison line.
#
#  * sweep/*: tests/c/rel_sweep, our bad-input sweep (see below).
#  * soak/*: tests/c/rel_soak, load (see below), ours and rdma-core's.
#
# Runs before 60-siw (which replaces the rxe links). CASE_LIBS=stock runs the errno checks on rdma-core.
#   tests/guest/run -- bash tests/guest/cases/55-reliability.sh
set -u
source "$(dirname "$0")/../lib/testlib.sh"
T=${CASE_TIMEOUT:-120}
BIN=${REL_C_BIN:-$REPO/tests/out/c}
mode=$(libs ours)
case_t0=$(now)
echo "# 55-reliability: libraries = $mode (CASE_LIBS=$CASE_LIBS), binaries from $BIN"

# ---- errno of dead handles -----------------------------------------------------------------------------------------
# run_prog PREFIX LIBS EXE : runs a tests/c program and forwards its PASS/FAIL lines as PREFIX/name.
run_prog() {
    local prefix=$1 m=$2 exe=$3 log="$WORK/${3##*/}.$2.log" rc np=0 nf=0 line
    if [[ ! -x $exe ]]; then
        fail "$prefix/exit" "$exe not built (tests/c/compile.sh builds it)"; return
    fi
    # shellcheck disable=SC2046
    env $(rpathenv "$m") RDMA_TEST_TIMEOUT=$((T - 10)) timeout "$T" "$exe" > "$log" 2>&1
    rc=$?
    while IFS= read -r line; do
        case $line in
            "PASS "*) echo "PASS $prefix/${line#PASS }"; np=$((np + 1)) ;;
            "FAIL "*) echo "FAIL $prefix/${line#FAIL }"; nf=$((nf + 1)) ;;
            "# "*) echo "$line" ;;
        esac
    done < "$log"
    passed=$((passed + np)) failed=$((failed + nf))
    if (( rc != 0 && nf == 0 )); then
        fail "$prefix/exit" "exit status $rc without a FAIL line, after $np checks" "$log"
    fi
}

run_prog "errno" "$mode" "$BIN/rel_errno"
[[ $mode != stock ]] && run_prog "errno-rdma-core" stock "$BIN/rel_errno"

# ---- bad-input sweep: tests/c/rel_sweep ----------------------------------------------------------------------------
# 193 calls of exported functions with NULL / garbage / stale / closed objects and NULL outputs, and 20 of issue 25's
# wrong inputs (objects of the other device's context, arguments outside the man page, destroyed objects handed to
# the rdma_verbs.h helpers; sweep/expect/* asserts our errno for 19; "# issue-25" lines: ours and rdma-core's), each in a forked
# child: ours must neither crash nor hang (sweep/sweep-no-crash-no-hang). rdma-core's run is the comparison (it
# crashes on most garbage and stale objects): its summary and every case whose outcome differs from ours are printed
# as "# " lines (README, "Misuse: the sweep").
run_prog "sweep" "$mode" "$BIN/rel_sweep"
if [[ $mode != stock && -x $BIN/rel_sweep ]]; then
    ref="$WORK/rel_sweep.stock.log"
    # shellcheck disable=SC2046
    env $(rpathenv stock) timeout "$T" "$BIN/rel_sweep" > "$ref" 2>&1
    echo "# sweep, rdma-core: $(grep -m1 '^# sweep:' "$ref" | sed 's/^# sweep: //')"
    echo "# sweep, ours:      $(grep -m1 '^# sweep:' "$WORK/rel_sweep.$mode.log" | sed 's/^# sweep: //')"
    paste -d'|' <(grep '^SWEEP' "$WORK/rel_sweep.$mode.log") <(grep '^SWEEP' "$ref") |
        awk -F'|' '$1 != $2 && $2 !~ / (crash|hang)/ { sub(/^SWEEP /, "", $1); sub(/^SWEEP .*\) /, "", $2); print "# sweep differs: " $1 " (rdma-core: " $2 ")" }'
    # Issue 25's kinds (wrong input rdma-core accepts): rdma-core's answer to each, crashes included.
    grep '^# issue-25 ' "$ref" | sed 's/^# issue-25 /# issue-25, rdma-core: /'
fi

# ---- load: tests/c/rel_soak ----------------------------------------------------------------------------------------
# 8 threads x 16 RC QPs move 2^20 sequence-numbered SENDs (every receive checked in order per QP, every send
# completion a success) while a ninth thread creates and destroys CQs, QPs, MRs and CM ids; then 10,000
# open/close cycles with descriptors, mappings and malloc'd bytes flat (RSS printed). Ours, then rdma-core's as the reference (it passes too).
# REL_SOAK_MSGS overrides the message count.
T_CASE=$T T=900
export SOAK_MSGS=${REL_SOAK_MSGS:-1048576}
run_prog "soak" "$mode" "$BIN/rel_soak"
[[ $mode != stock ]] && run_prog "soak-rdma-core" stock "$BIN/rel_soak"
T=$T_CASE

# ---- set-uid: VERBS_LOG_FILE and SYSFS_PATH ignored ------------------------------------------------------------------
# setuid_run NAME EXE LOGFILE [SETUID=1] : copies EXE to /tmp (root-owned, 4755 or 0755) and runs it as nobody with
# the file-naming variables set. Leaves the program's output in $SU_OUT.
setuid_run() {
    local name=$1 exe=$2 logfile=$3 setuid=${4:-1} copy=/tmp/su.$1
    cp "$exe" "$copy" && chown root:root "$copy" && chmod "$([[ $setuid == 1 ]] && echo 4755 || echo 0755)" "$copy"
    rm -f "$logfile"
    SU_OUT=$(cd /tmp && env -i PATH=/usr/bin:/bin VERBS_LOG_LEVEL=4 VERBS_LOG_FILE="$logfile" \
        SYSFS_PATH=/tmp/no-such-sysfs RDMAV_PROVIDER=plugin RDMAV_DRIVERS=/tmp/su-logs/evil timeout 30 setpriv --reuid=65534 --regid=65534 --clear-groups "$copy" \
        2> "$WORK/su.$name.stderr")
}

mkdir -p /tmp/su-logs && chmod 1777 /tmp/su-logs
if ! command -v setpriv > /dev/null; then
    fail setuid "no setpriv in the guest"
elif [[ $mode == stock ]]; then
    echo "# setuid: skipped with CASE_LIBS=stock (the comparison line below is rdma-core's)"
else
    # Control: not set-uid, the variables work (the log file is created, sysfs moved: no devices).
    setuid_run plain "$BIN/rel_setuid" /tmp/su-logs/plain.log 0
    if [[ -e /tmp/su-logs/plain.log && $SU_OUT == *"secure 0"* ]]; then
        pass setuid/control-log-file "not set-uid: VERBS_LOG_FILE created ($(wc -l < /tmp/su-logs/plain.log) lines); $SU_OUT"
    else
        fail setuid/control-log-file "not set-uid: no log file /tmp/su-logs/plain.log (the check would prove nothing): $SU_OUT"
    fi
    if grep -q "su-logs/evil" /tmp/su-logs/plain.log 2> /dev/null; then
        pass setuid/control-drivers "not set-uid: RDMAV_DRIVERS honoured ($(grep -m1 -o "couldn't load driver '[^']*'" /tmp/su-logs/plain.log))"
    else
        fail setuid/control-drivers "not set-uid: the log does not show RDMAV_DRIVERS=/tmp/su-logs/evil being tried" /tmp/su-logs/plain.log
    fi
    if [[ $SU_OUT == *"sysfs /tmp/no-such-sysfs "* ]]; then
        pass setuid/control-sysfs-path "not set-uid: SYSFS_PATH honoured; $SU_OUT"
    else
        fail setuid/control-sysfs-path "not set-uid: want sysfs /tmp/no-such-sysfs: $SU_OUT"
    fi
    # The set-uid-root copy: AT_SECURE; nothing created, sysfs stays /sys (both rxe devices found).
    setuid_run ours "$BIN/rel_setuid" /tmp/su-logs/ours.log
    if [[ $SU_OUT != *"euid 0 secure 1"* ]]; then
        fail setuid/ours "the set-uid copy did not run as euid 0 with AT_SECURE: $SU_OUT"
    else
        if [[ -e /tmp/su-logs/ours.log ]]; then
            fail setuid/log-file-ignored "set-uid: VERBS_LOG_FILE was created ($(stat -c '%U %a' /tmp/su-logs/ours.log)): $SU_OUT"
        else
            pass setuid/log-file-ignored "set-uid, as nobody: no /tmp/su-logs/ours.log; $SU_OUT"
        fi
        # The log went to stderr (VERBS_LOG_FILE ignored): it must show debug lines, and no attempt at the driver.
        if ! grep -q "debug" "$WORK/su.ours.stderr"; then
            fail setuid/drivers-ignored "no debug log on stderr: nothing to judge" "$WORK/su.ours.stderr"
        elif grep -q "su-logs/evil" "$WORK/su.ours.stderr"; then
            fail setuid/drivers-ignored "set-uid: RDMAV_DRIVERS was used: $(grep -m1 "su-logs/evil" "$WORK/su.ours.stderr")"
        else
            pass setuid/drivers-ignored "set-uid: /tmp/su-logs/evil-rdmav34.so never tried ($(grep -c debug "$WORK/su.ours.stderr") debug lines)"
        fi
        if [[ $SU_OUT == *"devices 2 sysfs /sys "* ]]; then
            pass setuid/sysfs-path-ignored "SYSFS_PATH=/tmp/no-such-sysfs ignored: $SU_OUT"
        else
            fail setuid/sysfs-path-ignored "want 'devices 2 sysfs /sys' (SYSFS_PATH ignored): $SU_OUT"
        fi
    fi
fi
# rdma-core's behaviour, for comparison (not a requirement): it opens VERBS_LOG_FILE even set-uid, as root.
if [[ -x $BIN/rel_setuid.stock ]]; then
    setuid_run stock "$BIN/rel_setuid.stock" /tmp/su-logs/stock.log
    if [[ -e /tmp/su-logs/stock.log ]]; then
        pass setuid/rdma-core-comparison "rdma-core 44 set-uid: creates VERBS_LOG_FILE ($(stat -c 'owner %U mode %a' /tmp/su-logs/stock.log)); $SU_OUT"
    else
        pass setuid/rdma-core-comparison "rdma-core 44 set-uid: no log file; $SU_OUT"
    fi
else
    fail setuid/rdma-core-comparison "$BIN/rel_setuid.stock not built (tests/c/compile.sh builds it)"
fi

echo "# 55-reliability took $(dur "$case_t0" "$(now)")"
summary reliability
(( failed == 0 ))
