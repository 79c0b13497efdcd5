#!/usr/bin/env bash
# Builds the cargo-fuzz targets of fuzz/ and runs each for a bounded time (docs/testing.md, "Fuzzing").
#
#   tools/fuzz.sh [SECONDS] [TARGET...]     SECONDS per target (default $FUZZ_SECONDS, else 20); all targets unless named
#   FUZZ_SECONDS=3600 tools/fuzz.sh         the long run by hand (an hour per target)
#
# Targets (fuzz/fuzz_targets/): netlink, sysfs, getaddrinfo, cm_event, cm_files, rsock_stream, rsock_dgram,
# rsock_udp_service. Each starts from its committed seeds
# (fuzz/seeds/<target>/) plus what earlier runs kept (fuzz/corpus/<target>/, not committed); a crash's input is saved
# as fuzz/artifacts/<target>/crash-* and reproduced with `fuzz/target/x86_64-unknown-linux-gnu/release/<target>
# <file>` (LD_LIBRARY_PATH=build/lib for the rdmacm targets).
#
# Prints one `PASS fuzz:<target> (...)` / `FAIL fuzz:<target>: reason` line per target (tests/runner.py records each),
# then `fuzz: N passed, M failed`. Exit status 0 only when every target built and ran its time without a finding.
#
# Needs cargo-fuzz (tools/install-deps.sh installs it) and, for the rdmacm targets, which link our libibverbs.so.1 as
# librdmacm does, $RDMA_CORE_RS_LIBDIR or build/lib (built here with `make libibverbs` when missing). The machine has
# only stable Rust: RUSTC_BOOTSTRAP=1 lets it take the nightly flags cargo-fuzz passes (-Zsanitizer=address, ...).
# Knobs: FUZZ_JOBS (targets run at once; default: the number of CPUs, at most 4), FUZZ_SANITIZER (address | none;
# default address).
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 1

ALL=(netlink sysfs getaddrinfo cm_event cm_files rsock_stream rsock_dgram rsock_udp_service)
secs=${FUZZ_SECONDS:-20}
if [[ $# -gt 0 && $1 =~ ^[0-9]+$ ]]; then
    secs=$1
    shift
fi
targets=("$@")
(( ${#targets[@]} )) || targets=("${ALL[@]}")
for t in "${targets[@]}"; do
    [[ " ${ALL[*]} " == *" $t "* ]] || { echo "FAIL fuzz:$t: no such target (${ALL[*]})"; exit 1; }
done
jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}
(( jobs > 4 )) && jobs=4
(( jobs < 1 )) && jobs=1
sanitizer=${FUZZ_SANITIZER:-address}

fail_all() { # REASON
    for t in "${targets[@]}"; do echo "FAIL fuzz:$t: $1"; done
    echo "fuzz: 0 passed, ${#targets[@]} failed"
    exit 1
}

export PATH="$HOME/.cargo/bin:$PATH"
cargo fuzz --version >/dev/null 2>&1 || fail_all "cargo-fuzz is not installed (run tools/install-deps.sh)"

libdir=${RDMA_CORE_RS_LIBDIR:-$ROOT/build/lib}
if [[ ! -e $libdir/libibverbs.so ]]; then
    echo "fuzz: no $libdir/libibverbs.so: make libibverbs" >&2
    make -s libibverbs >&2 || fail_all "make libibverbs failed"
    libdir=$ROOT/build/lib
fi

export RUSTC_BOOTSTRAP=1 RDMA_CORE_RS_LIBDIR=$libdir
t0=$(date +%s)
# Default cargo-fuzz profile: optimized, with debug assertions and overflow checks (an overflow is a finding).
if ! blog=$(cd fuzz && cargo fuzz build --sanitizer "$sanitizer" 2>&1); then
    printf '%s\n' "$blog" | tail -n 30 >&2
    fail_all "build failed (cargo fuzz build; output above)"
fi
echo "fuzz: built ${#ALL[@]} targets in $(( $(date +%s) - t0 ))s; running ${#targets[@]} for ${secs}s each, $jobs at a time" >&2

bin=fuzz/target/x86_64-unknown-linux-gnu/release
logs=$(mktemp -d /tmp/rdma-fuzz.XXXXXX) || exit 1
trap 'rm -rf "$logs"' EXIT

run_one() { # TARGET
    local t=$1
    mkdir -p "fuzz/corpus/$t" "fuzz/artifacts/$t"
    # No input may take 10 s (generous: a loaded machine), nor memory beyond 2 GB; -max_len: larger than any file or datagram parsed here.
    LD_LIBRARY_PATH=$libdir timeout $(( secs + 60 )) "$bin/$t" "fuzz/corpus/$t" "fuzz/seeds/$t" \
        -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=8192 \
        -artifact_prefix="fuzz/artifacts/$t/" -print_final_stats=1 > "$logs/$t.log" 2>&1
    echo $? > "$logs/$t.rc"
}

running=0
for t in "${targets[@]}"; do
    run_one "$t" &
    (( ++running >= jobs )) && { wait -n; (( running-- )); }
done
wait

passed=0 failed=0
for t in "${targets[@]}"; do
    rc=$(cat "$logs/$t.rc" 2>/dev/null || echo 1)
    runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$logs/$t.log" | tail -n 1)
    if [[ $rc == 0 && -n $runs ]]; then
        echo "PASS fuzz:$t ($runs runs in ${secs}s)"
        (( ++passed ))
    else
        art=$(sed -n 's/.*Test unit written to \(\S*\).*/\1/p' "$logs/$t.log" | tail -n 1)
        why=$(grep -m1 -E 'panicked at|ERROR: (libFuzzer|AddressSanitizer|LeakSanitizer)' "$logs/$t.log" || echo "exit status $rc")
        echo "FAIL fuzz:$t: ${why}${art:+ (input: $art)}"
        tail -n 40 "$logs/$t.log" | sed 's/^/    /'
        (( ++failed ))
    fi
done
echo "fuzz: $passed passed, $failed failed"
(( failed == 0 ))
