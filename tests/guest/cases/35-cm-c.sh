#!/bin/bash
# Our C tests of every rdma_* call (tests/c/cm_*.c, built on the host by tests/c/compile.sh into tests/out/c/, linked
# with a RUNPATH to build/lib): each program runs with OUR libraries and its "PASS name" / "FAIL name: reason" lines
# are forwarded as "PASS prog/name". A program that dies or exits non-zero without saying why is one more FAIL, and
# "prog/loaded-ours" checks (LD_DEBUG=files) that our libibverbs and librdmacm were the ones initialised.
#
# CASE_LIBS=stock runs them on the system's rdma-core 44 instead (LD_LIBRARY_PATH wins over RUNPATH): they were
# written against it and must all pass there; cm_v65 (rdma-core 65's calls) cannot load on 44 and is left out then.
#   tests/guest/run -e CASE_LIBS=stock -- bash tests/guest/cases/35-cm-c.sh
#
# Then rdma-core 65 as the reference: the programs of 65's calls (CM_SID_PROGS: cm_v65) run chrooted in the Debian
# sid root (testlib's rel_mount: build/roots/sid, or -e RDMA_ROOTS_DIR=<dir holding sid/>) with rdma-core 65's own
# libraries, with ours, and with our librdmacm alone over 65's libibverbs, and must give the same results check by
# check (rel_compare). Without a sid root this part only says so.
set -u
source "$(dirname "$0")/../lib/testlib.sh"
T=${CASE_TIMEOUT:-300}      # per program; each check inside has its own 40 s watchdog
BIN=${CM_C_BIN:-$REPO/tests/out/c}
LIBS_=$(libs ours)
case_t0=$(now)
echo "# 35-cm-c: $LIBS_ libraries (CASE_LIBS=$CASE_LIBS), programs from $BIN"

shopt -s nullglob
progs=()
CM_SID_PROGS=${CM_SID_PROGS:-cm_v65}
for p in "$BIN"/cm_*; do
    [[ -x $p && -f $p && $p != *.* ]] || continue
    [[ $LIBS_ == stock && " $CM_SID_PROGS " == *" ${p##*/} "* ]] && continue   # needs RDMACM_1.4
    progs+=("$p")
done
if (( ${#progs[@]} == 0 )); then
    fail cm-c "no cm_* programs in $BIN (run tests/c/compile.sh on the host first)"
fi

for p in "${progs[@]}"; do
    name=${p##*/}
    log="$WORK/$name.log"
    t0=$(now)
    rm -f "$WORK/$name.ldso".*
    # shellcheck disable=SC2046
    env $(rpathenv "$LIBS_") LD_DEBUG=files LD_DEBUG_OUTPUT="$WORK/$name.ldso" timeout "$T" "$p" > "$log" 2>&1
    rc=$?
    if [[ $LIBS_ == ours ]]; then
        cat "$WORK/$name.ldso".* > "$WORK/$name.ldso" 2>/dev/null
        ldso_check "$name/loaded-ours" "$WORK/$name.ldso" "libibverbs librdmacm"
    fi
    own_fail=0
    while IFS= read -r line; do
        case $line in
            "PASS "*) pass "$name/${line#PASS }" ;;
            "FAIL "*) echo "FAIL $name/${line#FAIL }"; failed=$((failed + 1)); own_fail=1 ;;
        esac
    done < "$log"
    if (( rc == 124 )); then
        fail "$name" "killed by timeout after ${T}s" "$log"
    elif (( rc > 128 )); then
        fail "$name" "killed by signal $((rc - 128))" "$log"
    elif (( rc != 0 && own_fail == 0 )); then
        fail "$name" "exit $rc without a FAIL line" "$log"
    elif (( rc == 0 && own_fail )); then
        fail "$name" "exit 0 despite FAIL lines" "$log"
    fi
    echo "# $name: exit $rc, $(dur "$t0" "$(now)")"
done

# rdma-core 65 (Debian sid, chrooted) as the reference for the programs of its calls.
if [[ $LIBS_ == stock ]]; then
    :
elif ! rel_mount sid; then
    echo "# rdma-core 65 comparison not run: $REL_ERROR"
else
    trap rel_umount EXIT
    REL_REF="rdma-core 65"
    mkdir -p "$REL_ROOT/tmp/c"
    for name in $CM_SID_PROGS; do
        if [[ ! -x $BIN/$name ]]; then
            fail "sid65/$name" "no $BIN/$name (run tests/c/compile.sh on the host first)"
            continue
        fi
        cp "$BIN/$name" "$REL_ROOT/tmp/c/$name"
        t0=$(now)
        ref=$WORK/sid65.$name.sid.log
        REL_LIBS=stock timeout "$T" "$REL_EXEC" "/tmp/c/$name" > "$ref" 2>&1
        src=$?
        if ! grep -Eq '^(PASS|FAIL) ' "$ref"; then
            fail "sid65/$name" "rdma-core 65's run reported nothing (exit $src)" "$ref"
            continue
        fi
        REL_LIBS=ours timeout "$T" "$REL_EXEC" "/tmp/c/$name" > "$WORK/sid65.$name.ours.log" 2>&1
        rel_compare "sid65/$name" "$ref" "$src" "$WORK/sid65.$name.ours.log" "$?"
        # Our librdmacm alone, over rdma-core 65's libibverbs (what a sid system gets from an LD_LIBRARY_PATH
        # holding only our librdmacm).
        REL_LIBS=rdmacm timeout "$T" "$REL_EXEC" "/tmp/c/$name" > "$WORK/sid65.$name.cm.log" 2>&1
        rel_compare "sid65/$name+libibverbs65" "$ref" "$src" "$WORK/sid65.$name.cm.log" "$?"
        echo "# sid65/$name: $(dur "$t0" "$(now)")"
    done
fi

echo "# 35-cm-c took $(dur "$case_t0" "$(now)")"
summary 35-cm-c
(( failed == 0 ))
