#!/usr/bin/env bash
# `make bench`: rdma-core-rs side by side with rdma-core 44, in one boot of the Soft-RoCE test guest.
# See docs/bench.md. Steps:
#   1. dependencies: tools/install-deps.sh (guest, rdma-core, perftest, valgrind), plus python3-matplotlib for the
#      chart (installed here; without it the report says so and has no PNG)
#   2. our libraries: `make lib` (if that fails, whatever build/lib already holds is measured, with a warning)
#   3. bench/datapath.c and bench/memory.c, compiled against our include/ into build/bench/
#   4. one guest boot running bench/guest.sh (every measurement, both library sets, interleaved)
#   5. bench/report.py: bench/results/<date>-<kernel>.{md,csv,png,samples.tsv} and latest.md
#
# Knobs (environment): BENCH_REPS=N (timed rounds, default 10), BENCH_QUICK=1 (a ~5 min smoke run),
# BENCH_OURS=stock (both columns rdma-core: the noise check), BENCH_BUDGET=S, BENCH_TIMEOUT=S, BENCH_ONLY=LIST,
# BENCH_SIW_REPS=N, BENCH_SCALE_REPS=N, BENCH_NO_BUILD=1 (skip step 2). Instruction counts only, in a minute or two:
# BENCH_ONLY=cpu BENCH_QUICK=1 (add ,siw for the Soft-iWARP part: with it, its perftest rounds too).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
REPO=$PWD
T0=$SECONDS
say() { echo "bench: $*" >&2; }

# 1. dependencies
tools/install-deps.sh || { say "FAILED: tools/install-deps.sh"; exit 1; }
PY=python3
for p in python3 /usr/bin/python3; do "$p" -c 'import matplotlib' 2>/dev/null && { PY=$p; break; }; done
if ! "$PY" -c 'import matplotlib' 2>/dev/null; then
    say "installing python3-matplotlib (for the chart) ..."
    SUDO=(); (( EUID != 0 )) && SUDO=(sudo -n)
    if ! { timeout 900 "${SUDO[@]}" apt-get -q -y -o DPkg::Lock::Timeout=600 install --no-install-recommends \
            python3-matplotlib > /tmp/bench-apt.log 2>&1 ||
           { timeout 600 "${SUDO[@]}" apt-get -q -y update >> /tmp/bench-apt.log 2>&1 &&
             timeout 900 "${SUDO[@]}" apt-get -q -y -o DPkg::Lock::Timeout=600 install --no-install-recommends \
                python3-matplotlib >> /tmp/bench-apt.log 2>&1; }; }; then
        say "warning: could not install python3-matplotlib (log /tmp/bench-apt.log): no chart"
    fi
    /usr/bin/python3 -c 'import matplotlib' 2>/dev/null && PY=/usr/bin/python3   # Debian's package is for Debian's python
fi

# 2. our libraries
if [[ ${BENCH_NO_BUILD:-0} != 1 ]]; then
    if ! make -s lib >&2; then
        say "warning: 'make lib' failed; measuring whatever build/lib holds"
    fi
fi
if [[ ${BENCH_OURS:-ours} != stock ]] && [[ ! -e build/lib/libibverbs.so.1 || ! -e build/lib/librdmacm.so.1 ]]; then
    say "warning: build/lib has no libibverbs.so.1/librdmacm.so.1: every 'ours' figure will fail"
fi

# 3. our C programs, against our headers (rdma-core's if ours do not compile, with a warning)
mkdir -p build/bench
CFLAGS=(-O2 -g -fno-optimize-sibling-calls -fno-ipa-icf -Wall -Wextra)
for prog in datapath memory objects; do
    libs=(-libverbs)
    [[ $prog != memory ]] && libs+=(-lrdmacm)   # datapath's siw mode connects through librdmacm; objects -s cm
    if ! gcc "${CFLAGS[@]}" -Iinclude -o "build/bench/$prog" "bench/$prog.c" "${libs[@]}" 2> "build/bench/$prog.cc.log"; then
        say "warning: bench/$prog.c does not compile against our include/ ($(head -n1 "build/bench/$prog.cc.log")); using rdma-core's headers"
        gcc "${CFLAGS[@]}" -o "build/bench/$prog" "bench/$prog.c" "${libs[@]}" || { say "FAILED: cannot compile bench/$prog.c"; exit 1; }
    fi
done

# 4. the guest
stamp=$(date -u +%Y%m%dT%H%M%SZ)
rundir=bench/results/work/$stamp
mkdir -p "$rundir"
envs=()
for v in BENCH_REPS BENCH_QUICK BENCH_OURS BENCH_BUDGET BENCH_TIMEOUT BENCH_ONLY BENCH_SIW_REPS BENCH_SCALE_REPS RDMA_ROOTS_DIR; do
    [[ -n ${!v:-} ]] && envs+=(-e "$v=${!v}")
done
load0=$(cut -d' ' -f1-3 /proc/loadavg)
say "host load before: $load0"
tests/guest/run --timeout "${BENCH_GUEST_TIMEOUT:-3000}" --rw bench/results "${envs[@]}" -- \
    bash bench/guest.sh "$rundir" 2>&1 | tee "$rundir/guest.log"
rc=${PIPESTATUS[0]}
load1=$(cut -d' ' -f1-3 /proc/loadavg)
say "host load after: $load1"
if [[ ! -s $rundir/samples.tsv ]]; then
    say "FAILED: the guest run produced no samples (exit $rc); see $rundir/guest.log"
    exit 1
fi
(( rc != 0 )) && say "warning: the guest run exited $rc; reporting what it measured"

# 5. the report
"$PY" bench/report.py "$rundir" --runtime $(( SECONDS - T0 )) \
    --host-load "$load0 before, $load1 after ($(nproc) cores)" || exit 1
say "done in $(( (SECONDS - T0) / 60 )) min $(( (SECONDS - T0) % 60 )) s (raw data and logs: $REPO/$rundir)"
