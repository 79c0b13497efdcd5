#!/bin/bash
# Our C conformance programs under AddressSanitizer + UndefinedBehaviorSanitizer (LeakSanitizer included) and under
# valgrind memcheck, with OUR libraries: zero reports allowed (issue 15, "Sanitizers"; docs/testing.md,
# "Sanitizers").
#
#  * canary/*: first, each tool must catch a deliberate error of tests/c/san_canary.c (a leak, a read past a block
#    our libibverbs malloc'd, a signed overflow; under valgrind a branch on an uninitialised byte and a leak), and
#    pass its error-free run. A tool that cannot report (LeakSanitizer needs ptrace, valgrind must run at all) fails
#    here instead of passing everything below.
#  * asan/<prog>: every program tests/c/compile.sh --sanitize built into tests/out/c-asan (verbs_*, cm_*, rsock_api,
#    rel_errno, rel_sweep, rel_soak with SOAK_MSGS=2^16), invoked as cases 25, 35, 45 and 55 invoke them, with
#    ASAN_OPTIONS / UBSAN_OPTIONS making any report fatal (exit 86): one PASS line per program when it exits 0 and
#    its output holds no sanitizer report; each of its own FAIL lines is forwarded as asan/<prog>/<check>.
#  * valgrind/<prog>: the plain builds (tests/out/c) of a set of those programs under
#    `valgrind --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite` with tests/valgrind.supp;
#    PASS when they exit 0 with no memcheck error: no invalid access, no use of an uninitialised value, no syscall
#    given uninitialised bytes, no bad free, no block definitely lost. "Possibly lost" blocks are not errors here:
#    an application's ibv_context lies inside our verbs_context block (the C ABI's layout), so its only pointer is
#    an interior one, and LeakSanitizer, for which an interior pointer keeps a block alive, already judges leaks in
#    the asan/* runs. (libibverbs' registry holds tagged keys, not pointers: an object a program drops without
#    destroying it is definitely lost, as with rdma-core; the programs' forked children close what they open.)
#
# CASE_LIBS=stock runs the same on rdma-core 44 (LD_LIBRARY_PATH beats the RUNPATH), to validate the case.
#   tests/guest/run --timeout 1500 -- bash tests/guest/cases/57-sanitizers.sh
# SAN_ONLY="asan valgrind canary" picks parts; VALGRIND_PROGS overrides the valgrind list.
set -u
source "$(dirname "$0")/../lib/testlib.sh"
T=${CASE_TIMEOUT:-240}
ABIN=${ASAN_C_BIN:-$REPO/tests/out/c-asan}
BIN=${VERBS_C_BIN:-$REPO/tests/out/c}
SUPP=$REPO/tests/valgrind.supp
mode=$(libs ours)
ONLY=${SAN_ONLY:-canary asan valgrind}
case_t0=$(now)
echo "# 57-sanitizers: libraries = $mode (CASE_LIBS=$CASE_LIBS), ASan binaries from $ABIN, valgrind on $BIN"

# Any report fatal, with an exit status no test program uses. LeakSanitizer runs at exit (detect_leaks=1; it stops
# the process's threads with ptrace, which works for root in the guest: canary/asan-leak proves it).
export ASAN_OPTIONS=halt_on_error=1:abort_on_error=0:exitcode=86:detect_leaks=1:print_summary=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:exitcode=86
# What a sanitizer report looks like in a program's output.
REPORT='ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:|Sanitizer:DEADLYSIGNAL|WARNING: AddressSanitizer'
VG=(valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=definite --errors-for-leak-kinds=definite
    --num-callers=30 --suppressions="$SUPP")
# A memcheck error's first line.
VGREPORT='^==[0-9]+== (Invalid|Conditional|Use of uninit|Syscall param|Mismatched|Source and destination overlap|[0-9,]+ bytes in [0-9,]+ blocks are definitely)'

on() { [[ " $ONLY " == *" $1 "* ]]; }

# report_excerpt LOG REGEX : the first lines of the first report in LOG, indented.
report_excerpt() {
    echo "    --- first report"
    grep -E -m1 -A16 "$2" "$1" | cut -c1-200 | sed 's/^/    /'
}

# canary NAME EXIT_WANT GREP CMD... : CMD must exit with EXIT_WANT (any non-zero: "nz") and print GREP (a regex).
canary() {
    local name=$1 want=$2 re=$3; shift 3
    local log="$WORK/canary-${name//\//_}.log" rc
    # shellcheck disable=SC2046
    env $(rpathenv "$mode") timeout "$T" "$@" > "$log" 2>&1
    rc=$?
    if [[ $want == nz ]] && (( rc == 0 || rc == 124 )); then
        fail "canary/$name" "exit $rc: the tool did not stop the program" "$log"
    elif [[ $want != nz ]] && (( rc != want )); then
        fail "canary/$name" "exit $rc, want $want" "$log"
    elif ! grep -Eq "$re" "$log"; then
        fail "canary/$name" "exit $rc but no /$re/ in its output" "$log"
    else
        pass "canary/$name" "exit $rc: $(grep -Em1 "$re" "$log" | sed 's/^==[0-9]*== //' | cut -c1-110)"
    fi
}

# The binaries must load the library set we mean (the dynamic linker's own answer, without running them).
if [[ -x $ABIN/verbs_device ]]; then
    want=$([[ $mode == stock ]] && echo "$SYSLIB" || echo "$OURS")
    # shellcheck disable=SC2046
    got=$(env $(rpathenv "$mode") LD_TRACE_LOADED_OBJECTS=1 "$ABIN/verbs_device" 2>&1)
    ib=$(sed -n 's/^[[:space:]]*libibverbs.so.1 => \([^ ]*\) .*/\1/p' <<< "$got")
    asan=$(sed -n 's/^[[:space:]]*\(libasan.so[^ ]*\) => .*/\1/p' <<< "$got")
    if [[ $ib == "$want/libibverbs.so.1" && -n $asan ]]; then
        pass asan-libs "libibverbs.so.1 => $ib, $asan"
    else
        fail asan-libs "libibverbs.so.1 => '${ib:-not found}' (want $want/libibverbs.so.1), libasan '${asan:-none}'"
    fi
else
    fail asan-libs "$ABIN/verbs_device not built (tests/c/compile.sh --sanitize builds tests/out/c-asan)"
fi

if on canary; then
    canary asan-ok 0 'no error' "$ABIN/san_canary" ok
    canary asan-leak nz 'ERROR: LeakSanitizer: detected memory leaks' "$ABIN/san_canary" leak
    canary asan-lib-heap nz 'ERROR: AddressSanitizer: heap-buffer-overflow' "$ABIN/san_canary" lib-heap
    canary ubsan-overflow nz 'runtime error: signed integer overflow' "$ABIN/san_canary" ub
    canary valgrind-ok 0 'no error' "${VG[@]}" "$BIN/san_canary" ok
    canary valgrind-uninit 99 'Conditional jump or move depends on uninitialised' "${VG[@]}" "$BIN/san_canary" uninit
    canary valgrind-leak 99 'definitely lost' "${VG[@]}" "$BIN/san_canary" leak
fi

# run_tool TOOL PROG ENV... -- CMD... : runs one program (ASan build or under valgrind), forwards its FAIL lines as
# TOOL/PROG/check and judges the run as a whole: TOOL/PROG.
run_tool() {
    local tool=$1 p=$2; shift 2
    local envs=()
    while [[ $1 != -- ]]; do envs+=("$1"); shift; done
    shift
    local log="$WORK/$tool.$p.log" t0 rc np=0 nf=0 line
    t0=$(now)
    # shellcheck disable=SC2046
    env $(rpathenv "$mode") "${envs[@]}" timeout "$T" "$@" > "$log" 2>&1
    rc=$?
    while IFS= read -r line; do
        case $line in
            "PASS "*) np=$((np + 1)) ;;
            "FAIL "*) echo "FAIL $tool/$p/${line#FAIL }"; nf=$((nf + 1)); failed=$((failed + 1)) ;;
        esac
    done < "$log"
    local re=$REPORT nrep
    [[ $tool == valgrind ]] && re=$VGREPORT
    nrep=$(grep -Ec "$re" "$log")
    local what="$np checks passed, $nf failed, exit $rc, $(dur "$t0" "$(now)")"
    if (( nrep > 0 )); then
        fail "$tool/$p" "$nrep report(s); $what"
        report_excerpt "$log" "$re"
    elif (( rc == 124 )); then
        fail "$tool/$p" "killed by timeout ${T}s; $what" "$log"
    elif (( rc != 0 )); then
        fail "$tool/$p" "$what" "$log"
    elif (( np == 0 )); then
        fail "$tool/$p" "no check ran; $what" "$log"
    else
        pass "$tool/$p" "$what, no report"
    fi
}

# The environment each program gets in its own case (25, 35, 45, 55).
prog_env() {
    case $1 in
        verbs_*) echo "RDMA_TEST_PORT_EVENT=1 RDMA_TEST_TIMEOUT=$((T - 10))" ;;
        rsock_*) echo "RSOCK_TEST_LIBS=$mode RDMA_TEST_IP0=$IP0 RDMA_TEST_IP1=$IP1" ;;
        rel_soak) echo "RDMA_TEST_TIMEOUT=$((T - 10)) SOAK_MSGS=${SAN_SOAK_MSGS:-65536}" ;;
        rel_*) echo "RDMA_TEST_TIMEOUT=$((T - 10))" ;;
        *) echo "RDMA_TEST_TIMEOUT=$((T - 10))" ;;
    esac
}

if on asan; then
    shopt -s nullglob
    progs=()
    for exe in "$ABIN"/*; do
        [[ -x $exe && -f $exe && $exe != *.* ]] || continue
        p=${exe##*/}
        [[ $p == san_canary ]] && continue
        # The hostile-peer programs need their liar and scenarios: case 58 runs them under ASan.
        [[ $p == hostile_* ]] && continue
        # rdma-core 65's calls (RDMACM_1.4, 1.5): rdma-core 44 cannot load them.
        [[ $mode == stock && ( $p == cm_v65 || $p == rsock_repoll ) ]] && continue
        progs+=("$p")
    done
    if (( ${#progs[@]} < 10 )); then
        fail asan "only ${#progs[@]} programs in $ABIN (run tests/c/compile.sh --sanitize on the host first)"
    fi
    for p in "${progs[@]}"; do
        if [[ $REPO/tests/c/$p.c -nt $ABIN/$p ]]; then
            fail "asan/$p" "$ABIN/$p is older than its source: run tests/c/compile.sh --sanitize"; continue
        fi
        # shellcheck disable=SC2046
        run_tool asan "$p" $(prog_env "$p") -- "$ABIN/$p"
    done
fi

if on valgrind; then
    if ! command -v valgrind > /dev/null; then
        fail valgrind "no valgrind in the guest (the host's /usr/bin/valgrind, package valgrind)"
    fi
    # A few programs (valgrind under TCG is ~5x slower than ASan: 20-80 s each). Their forked children's 5 s limits
    # (tu_run_child) become 60 s: valgrind's start-up in a child under TCG can take longer than 5 s.
    for p in ${VALGRIND_PROGS:-verbs_device verbs_pd_mr verbs_qp verbs_misuse cm_basic cm_conn cm_ud rsock_api rel_errno}; do
        if [[ ! -x $BIN/$p ]]; then
            fail "valgrind/$p" "$BIN/$p not built (tests/c/compile.sh)"; continue
        fi
        # shellcheck disable=SC2046
        run_tool valgrind "$p" $(prog_env "$p") RDMA_TEST_CHILD_SECS=60 -- "${VG[@]}" "$BIN/$p"
    done
fi

echo "# 57-sanitizers took $(dur "$case_t0" "$(now)")"
summary 57-sanitizers
(( failed == 0 ))
