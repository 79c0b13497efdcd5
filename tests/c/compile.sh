#!/bin/bash
# Compile tests against OUR headers (include/) and libraries (build/lib):
#  1. the manual's five example programs (../shared/manual-examples), unchanged, with -Wall: the manual's own
#     warnings are allowed, errors are not; each must link against our libibverbs/librdmacm only;
#  2. the same programs against the system headers, to prove the warning sets are identical (any warning that
#     appears only with our headers is a failure: it would be our header's fault);
#  3. our C tests (tests/c/*.c) with -Wall -Wextra -Werror.
# Prints PASS/FAIL per program and "c-compile: N passed, N failed".
#
# tests/c/compile.sh --sanitize builds only our C tests, instrumented, into tests/out/c-asan (for guest case
# 57-sanitizers): AddressSanitizer (LeakSanitizer included) and UndefinedBehaviorSanitizer, every UBSan report fatal,
# -O1 -g, linked against our build/lib with a RUNPATH like the plain ones. Our libraries themselves are not
# instrumented (Rust), but they allocate through malloc, which ASan replaces: their blocks get redzones, their frees
# are checked, their leaks are found, and the C side's every read of what they hand out is checked. Left out:
# rsock_preload* (no RDMA library: they run under rdma-core's librspreload), rel_setuid (only meaningful set-uid) and
# fault_load (its scenarios kill peers and delete links under case 56's orchestration). Prints
# "c-compile-asan: N passed, N failed".
set -u
cd "$(dirname "$0")/../.."
ROOT=$PWD
LIB=${RDMA_CORE_RS_LIBDIR:-$ROOT/build/lib}
EX=${MANUAL_EXAMPLES:-$ROOT/../shared/manual-examples}
SANITIZE=0
[[ ${1:-} == --sanitize ]] && SANITIZE=1
if (( SANITIZE )); then OUT=${OUT:-$ROOT/tests/out/c-asan}; else OUT=${OUT:-$ROOT/tests/out/c}; fi
mkdir -p "$OUT"
passed=0 failed=0
pass() { echo "PASS $1${2:+ ($2)}"; passed=$((passed + 1)); }
fail() { echo "FAIL $1: $2"; [[ -n ${3:-} && -s $3 ]] && sed 's/^/    /' "$3" | tail -n 25; failed=$((failed + 1)); }

if (( SANITIZE )); then
    SANFLAGS=(-g -O1 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
    for src in tests/c/*.c; do
        prog=$(basename "$src" .c)
        case $prog in rsock_preload* | rel_setuid | fault_load) continue ;; esac
        if gcc -std=gnu11 -Wall -Wextra -Werror "${SANFLAGS[@]}" -I "$ROOT/include" -o "$OUT/$prog" "$src" \
            -L "$LIB" -Wl,-rpath,"$LIB" -libverbs -lrdmacm -lpthread > "$OUT/$prog.log" 2>&1; then
            pass "c-asan/$prog"
        else
            fail "c-asan/$prog" "does not compile with ${SANFLAGS[*]}" "$OUT/$prog.log"
        fi
    done
    echo "c-compile-asan: $passed passed, $failed failed"
    (( failed == 0 ))
    exit
fi

# Normalised warning list: "file:line: [-Wflag]" (message text may differ in type spelling).
warnings() { grep -E 'warning:' "$1" | sed -E 's/^([^:]+):([0-9]+):[0-9]+: warning: .*(\[-W[^]]+\])$/\1:\2: \3/' | sort -u; }

declare -A flags=(
    [RDMA_RC_example]="-O2"
    [RDMA_RC_example-fixed]="-O2"
    [mckey]="-O2 -g -D_GNU_SOURCE"
    [apm]="-O2"
    [mc]="-O2"
    [srq]="-O2"
)
if [[ ! -d $EX ]]; then
    fail manual-examples "no directory $EX"
else
    for prog in RDMA_RC_example RDMA_RC_example-fixed mckey apm mc srq; do
        src=$EX/$prog.c
        # shellcheck disable=SC2086
        gcc -Wall ${flags[$prog]} -I "$ROOT/include" -o "$OUT/$prog" "$src" -L "$LIB" -Wl,-rpath,"$LIB" \
            -libverbs -lrdmacm -lpthread > "$OUT/$prog.ours.log" 2>&1
        rc=$?
        # shellcheck disable=SC2086
        gcc -Wall ${flags[$prog]} -c -o /dev/null "$src" > "$OUT/$prog.sys.log" 2>&1
        if (( rc != 0 )); then
            fail "manual/$prog" "does not compile or link against our headers/libraries" "$OUT/$prog.ours.log"
            continue
        fi
        extra=$(comm -13 <(warnings "$OUT/$prog.sys.log") <(warnings "$OUT/$prog.ours.log"))
        if [[ -n $extra ]]; then
            fail "manual/$prog" "warnings only with our headers: $extra" "$OUT/$prog.ours.log"
            continue
        fi
        deps=$(readelf -d "$OUT/$prog" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p' | tr '\n' ' ')
        if ! LD_LIBRARY_PATH= ldd "$OUT/$prog" | grep -q "libibverbs.so.1 => $LIB/"; then
            fail "manual/$prog" "does not resolve libibverbs.so.1 to $LIB" ; continue
        fi
        pass "manual/$prog" "$(warnings "$OUT/$prog.ours.log" | wc -l) manual warnings, needs: $deps"
    done
fi

shopt -s nullglob
for src in tests/c/*.c; do
    prog=$(basename "$src" .c)
    if [[ $prog == rsock_preload* ]]; then
        # A plain socket program for librspreload: no RDMA library, no RUNPATH (the preload's librdmacm must be
        # the one LD_LIBRARY_PATH selects).
        if gcc -std=gnu11 -Wall -Wextra -Werror -o "$OUT/$prog" "$src" > "$OUT/$prog.log" 2>&1; then
            pass "c/$prog"
        else
            fail "c/$prog" "does not compile" "$OUT/$prog.log"
        fi
        continue
    fi
    if gcc -std=gnu11 -Wall -Wextra -Werror -I "$ROOT/include" -o "$OUT/$prog" "$src" -L "$LIB" \
        -Wl,-rpath,"$LIB" -libverbs -lrdmacm -lpthread > "$OUT/$prog.log" 2>&1; then
        pass "c/$prog"
    else
        fail "c/$prog" "does not compile" "$OUT/$prog.log"
    fi
done
# rel_setuid also against the system's rdma-core (system headers, no RUNPATH): a set-uid program ignores
# LD_LIBRARY_PATH, so guest case 55-reliability needs this second binary for its rdma-core comparison. The other
# programs (fault_load of case 56-faults included) meet rdma-core through LD_LIBRARY_PATH, which beats RUNPATH.
if gcc -std=gnu11 -Wall -Wextra -Werror -o "$OUT/rel_setuid.stock" tests/c/rel_setuid.c -libverbs -lrdmacm \
    > "$OUT/rel_setuid.stock.log" 2>&1; then
    pass "c/rel_setuid.stock"
else
    fail "c/rel_setuid.stock" "does not compile against the system's rdma-core" "$OUT/rel_setuid.stock.log"
fi
echo "c-compile: $passed passed, $failed failed"
(( failed == 0 ))
