#!/bin/bash
# Our C conformance tests of libibverbs (tests/c/verbs_*.c: devices, PD/MR, CQ, QP, SRQ, async events), run with
# OUR libraries. tests/c/compile.sh builds them on the host into tests/out/c/ (against include/, linked to build/lib
# with a RUNPATH) before the guest boots. Each program prints `PASS name` / `FAIL name: reason` lines; they are
# forwarded here as `PASS verbs_qp/name`. A program that crashes, hangs or exits non-zero without saying why is a
# FAIL of its own (`verbs_qp/exit`).
#
# CASE_LIBS=stock runs them against the system's rdma-core 44 instead (LD_LIBRARY_PATH beats their RUNPATH): that is
# how the tests themselves are validated, and every check must pass there.
#   tests/guest/run -e CASE_LIBS=stock -- bash tests/guest/cases/25-verbs-c.sh
set -u
source "$(dirname "$0")/../lib/testlib.sh"
T=${CASE_TIMEOUT:-120}
BIN=${VERBS_C_BIN:-$REPO/tests/out/c}
mode=$(libs ours)
case_t0=$(now)
echo "# 25-verbs-c: libraries = $mode (CASE_LIBS=$CASE_LIBS), binaries from $BIN"

shopt -s nullglob
progs=()
for src in "$REPO"/tests/c/verbs_*.c; do progs+=("$(basename "$src" .c)"); done
if (( ${#progs[@]} == 0 )); then
    fail verbs-c "no tests/c/verbs_*.c sources"
    summary verbs-c; exit 1
fi

# The binaries must load the library set we mean (the dynamic linker's own answer, without running them).
first=$BIN/${progs[0]}
if [[ -x $first ]]; then
    want=$([[ $mode == stock ]] && echo "$SYSLIB" || echo "$OURS")
    # shellcheck disable=SC2046
    got=$(env $(rpathenv "$mode") LD_TRACE_LOADED_OBJECTS=1 "$first" 2>&1 | sed -n 's/^[[:space:]]*libibverbs.so.1 => \([^ ]*\) .*/\1/p')
    if [[ $got == "$want/libibverbs.so.1" ]]; then
        pass verbs-c-libs "libibverbs.so.1 => $got"
    else
        fail verbs-c-libs "libibverbs.so.1 => '${got:-not found}', want $want/libibverbs.so.1"
    fi
fi

for p in "${progs[@]}"; do
    exe=$BIN/$p log=$WORK/$p.log
    # verbs_v65* call rdma-core 65's IBVERBS_1.15-1.18 and IBVERBS_PRIVATE_65: a libibverbs without them
    # (bookworm's rdma-core 44) cannot load them. Their expectations were taken from sid's rdma-core 65 (chrooted).
    if [[ $p == verbs_v65* && $mode == stock ]] && ! grep -qa IBVERBS_1.18 "$SYSLIB/libibverbs.so.1"; then
        echo "# $p: skipped: the system's libibverbs has no IBVERBS_1.18"
        continue
    fi
    if [[ ! -x $exe ]]; then
        fail "$p/exit" "$exe not built (tests/c/compile.sh builds it)"; continue
    fi
    if [[ $REPO/tests/c/$p.c -nt $exe || $REPO/tests/c/testutil.h -nt $exe ]]; then
        fail "$p/exit" "$exe is older than its sources: run tests/c/compile.sh"; continue
    fi
    t0=$(now)
    # RDMA_TEST_PORT_EVENT=1: verbs_async may take rxe1's netdev down and up (this guest is ours to disturb).
    # shellcheck disable=SC2046
    env $(rpathenv "$mode") RDMA_TEST_PORT_EVENT=1 RDMA_TEST_TIMEOUT=$((T - 10)) timeout "$T" "$exe" > "$log" 2>&1
    rc=$?
    np=0 nf=0
    while IFS= read -r line; do
        case $line in
            "PASS "*) echo "PASS $p/${line#PASS }"; np=$((np + 1)) ;;
            "FAIL "*) echo "FAIL $p/${line#FAIL }"; nf=$((nf + 1)) ;;
        esac
    done < "$log"
    passed=$((passed + np)) failed=$((failed + nf))
    if (( rc == 124 || rc > 128 )); then
        why="exit status $rc"
        (( rc == 124 )) && why+=" (killed by timeout ${T}s)" || why+=" (signal $((rc - 128)): crashed)"
        fail "$p/exit" "$why after $np passed and $nf failed checks" "$log"
    elif (( rc != 0 && nf == 0 )); then
        fail "$p/exit" "exit status $rc without a FAIL line, after $np checks" "$log"
    elif (( rc == 0 && nf > 0 )); then
        fail "$p/exit" "exit status 0 despite $nf failed checks"
    fi
    echo "# $p: $np passed, $nf failed, exit $rc, $(dur "$t0" "$(now)")"
done

echo "# 25-verbs-c took $(dur "$case_t0" "$(now)")"
summary verbs-c
(( failed == 0 ))
