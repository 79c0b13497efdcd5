#!/bin/bash
# Hostile peers (issue 25; docs/testing.md, "Hostile peers"; docs/cm.md, "Peer input"):
#
#  * hostile/<scenario>: tests/c/hostile_rsock's victim, built with AddressSanitizer + UBSan (tests/out/c-asan),
#    runs our stream and datagram rsockets in ONE process against a lying peer per scenario (the liar: the same
#    program's plain build on rdma-core's libibverbs/librdmacm, speaking the rsocket wire over real RC and UD QPs with
#    verbs), while a healthy rsocket connection of the same process echoes data all along. Each scenario must end in
#    an error (EPROTO or ECONNRESET) on that socket, a refused connection, or a dropped datagram, within the
#    victim's deadline (HOSTILE_DEADLINE_MS, 3 s); hostile/healthy-connection: the healthy connection moved data
#    during the scenarios and after; hostile/no-sanitizer-report: no ASan, LeakSanitizer or UBSan report;
#    hostile/exit: the victim exited by itself.
#  * CASE_LIBS=stock: the same victim on rdma-core 44's rsockets, one process per scenario (a crash or hang must not
#    hide the others): each outcome printed as "# rdma-core <scenario>: ..." (crash: a signal or a sanitizer report,
#    named; hang: killed by the timeout), for docs/testing.md's table; the case then only checks that every scenario
#    was measured.
#  * cm/<name>: tests/c/hostile_cm (private data of every length the wire allows and one past it in REQ, REP and
#    REJ, garbage in replies and rejects, a storm of crossing disconnect requests) on the libraries under test
#    (ASan build) and on rdma-core 44: each "CM" line, what every event said, must be the same.
#
#   tests/guest/run -- bash tests/guest/cases/58-hostile.sh
#   HOSTILE_SCENARIOS="data-past-buffer credits-huge" runs some only (names: tests/out/c/hostile_rsock list).
set -u
source "$(dirname "$0")/../lib/testlib.sh"
T=${CASE_TIMEOUT:-150}
ABIN=${ASAN_C_BIN:-$REPO/tests/out/c-asan}
BIN=${VERBS_C_BIN:-$REPO/tests/out/c}
mode=$(libs ours)
case_t0=$(now)
echo "# 58-hostile: libraries = $mode (CASE_LIBS=$CASE_LIBS), victim $ABIN/hostile_rsock, liar $BIN/hostile_rsock on rdma-core"

export ASAN_OPTIONS=halt_on_error=1:abort_on_error=0:exitcode=86:detect_leaks=1:print_summary=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:exitcode=86
REPORT='ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:|Sanitizer:DEADLYSIGNAL|WARNING: AddressSanitizer'
# The liar always runs on rdma-core: the lies must not depend on the libraries under test.
export HOSTILE_LIAR=$BIN/hostile_rsock HOSTILE_LIAR_LIBS=$SYSLIB

for f in "$ABIN/hostile_rsock" "$BIN/hostile_rsock"; do
    if [[ ! -x $f ]]; then
        fail hostile/built "$f not built (tests/c/compile.sh, tests/c/compile.sh --sanitize)"
        summary 58-hostile
        exit 1
    fi
done
mapfile -t all < <("$BIN/hostile_rsock" list | cut -f1)
scen=(${HOSTILE_SCENARIOS:-${all[*]}})

if [[ $mode == ours ]]; then
    log=$WORK/hostile.log
    t0=$(now)
    # shellcheck disable=SC2046
    env $(rpathenv ours) HOSTILE_PORT=7900 timeout "$T" "$ABIN/hostile_rsock" victim "${scen[@]}" > "$log" 2>&1
    rc=$?
    np=0 nf=0
    while IFS= read -r line; do
        case $line in
            "PASS "*) echo "PASS hostile/${line#PASS }"; np=$((np + 1)) ;;
            "FAIL "*) echo "FAIL hostile/${line#FAIL }"; nf=$((nf + 1)) ;;
            "SCEN "*) echo "# ${line#SCEN }" ;;
        esac
    done < "$log"
    passed=$((passed + np)) failed=$((failed + nf))
    if grep -Eq "$REPORT" "$log"; then
        fail hostile/no-sanitizer-report "a sanitizer report in the victim's output" 
        grep -E -m1 -A16 "$REPORT" "$log" | cut -c1-200 | sed 's/^/    /'
    else
        pass hostile/no-sanitizer-report "${#scen[@]} scenarios, ASan + UBSan + LeakSanitizer"
    fi
    if (( rc == 0 || (rc == 1 && nf > 0) )); then
        pass hostile/exit "exit $rc after $(dur "$t0" "$(now)")"
    else
        fail hostile/exit "exit status $rc (124: hung past ${T}s; 86: sanitizer) after $np checks" "$log"
    fi
else
    # rdma-core: one victim process per scenario, its fate judged from outside.
    n=0 port=7900
    for s in "${scen[@]}"; do
        log=$WORK/hostile-stock-$s.log
        port=$((port + 8))
        # shellcheck disable=SC2046
        env $(rpathenv stock) HOSTILE_PORT=$port HOSTILE_EXPECT=none ASAN_OPTIONS=${ASAN_OPTIONS/detect_leaks=1/detect_leaks=0} timeout 25 "$ABIN/hostile_rsock" victim "$s" \
            > "$log" 2>&1
        rc=$?
        line=$(grep -m1 "^SCEN $s " "$log" | sed "s/^SCEN $s //")
        kind=$(grep -Eo -m1 'ERROR: AddressSanitizer: [a-z-]+|ERROR: LeakSanitizer|runtime error: [a-z ]+' "$log")
        if (( rc == 86 )) || [[ -n $kind ]]; then
            what="crash (${kind:-sanitizer}${line:+; before: $line})"
        elif (( rc == 124 )); then
            what="hang (killed after 25 s${line:+; $line})"
        elif (( rc > 128 )); then
            what="crash (signal $((rc - 128))${line:+; $line})"
        else
            what=${line:-"no outcome (exit $rc)"}
        fi
        echo "# rdma-core $s: $what"
        n=$((n + 1))
    done
    pass hostile/rdma-core-measured "$n scenarios"
fi

# ---- the CM: private data of every length the wire allows, garbage replies, a disconnect storm ------------------
# tests/c/hostile_cm on the libraries under test (its ASan build) and on rdma-core 44 (the reference): every "CM"
# line (what each side's events said, a call's errno) must be the same; cm/<name> per line. HOSTILE_CM_STEP (default
# 1: every length, 0 to one past the limit in REQ, REJ and REP, 406 connections per library, a few seconds) sets how
# many lengths are tried (4: every 4th and those at the limits).
CM_STEP=${HOSTILE_CM_STEP:-1}
if [[ -x $ABIN/hostile_cm && -x $BIN/hostile_cm ]]; then
    cref=$WORK/cm.rdma-core.log cours=$WORK/cm.$mode.log
    # shellcheck disable=SC2046
    env $(rpathenv stock) HOSTILE_CM_PORT=7980 HOSTILE_CM_STEP=$CM_STEP timeout "$T" "$BIN/hostile_cm" > "$cref" 2>&1
    rref=$?
    # shellcheck disable=SC2046
    env $(rpathenv "$mode") HOSTILE_CM_PORT=7981 HOSTILE_CM_STEP=$CM_STEP timeout "$T" "$ABIN/hostile_cm" > "$cours" 2>&1
    rours=$?
    if grep -Eq "$REPORT" "$cours"; then
        fail cm/no-sanitizer-report "a sanitizer report" "$cours"
    else
        pass cm/no-sanitizer-report "ASan + UBSan + LeakSanitizer"
    fi
    (( rref == 0 )) || fail cm/rdma-core-exit "the reference run exited $rref" "$cref"
    (( rours == 0 )) && pass cm/exit "exit 0" || fail cm/exit "exit $rours" "$cours"
    declare -A want=()
    while read -r _ name facts; do want[$name]=$facts; done < <(grep '^CM ' "$cref")
    ncm=0
    while read -r _ name facts; do
        ncm=$((ncm + 1))
        if [[ ${want[$name]-unset} == "$facts" ]]; then
            pass "cm/$name" "$facts"
        else
            fail "cm/$name" "ours: $facts; rdma-core: ${want[$name]-no such line}"
        fi
        unset "want[$name]"
    done < <(grep '^CM ' "$cours")
    for name in "${!want[@]}"; do fail "cm/$name" "no such line from ours; rdma-core: ${want[$name]}"; done
    cm_min=$(( CM_STEP == 1 ? 400 : 100 ))
    (( ncm > cm_min )) || fail cm/lines "only $ncm CM lines (want more than $cm_min)" "$cours"
else
    fail cm/built "$ABIN/hostile_cm or $BIN/hostile_cm not built"
fi

echo "# 58-hostile took $(dur "$case_t0" "$(now)")"
summary 58-hostile
(( failed == 0 ))
