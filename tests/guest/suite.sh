#!/bin/bash
# The in-guest test suite: runs every tests/guest/cases/*.sh in one boot (tests/runner.py calls
#   tests/guest/run --timeout N -- tests/guest/suite.sh). Each case prints PASS/FAIL lines; the suite exits non-zero
# if any case failed. A case that runs too long is killed (CASE_LIMIT seconds) and reported.
#
# SUITE_CASES="00-stock 25-verbs-c 70-release@trixie" runs only the cases named, in that order (tests/runner.py's
# matrix cells use it); CASE@RELEASE runs CASE with RELEASE=<release> in its environment (the release cases,
# 70-release, chroot into build/roots/<release>). Unset, every case runs (70-release with its default release).
# After each case the suite prints "# <case> took <seconds>s (suite)" (guest time), which the runner reports per cell.
set -u
cd "$(dirname "$0")/../.."
export REPO=$PWD
limit=${CASE_LIMIT:-1200}
status=0
cases=()
if [[ -n ${SUITE_CASES:-} ]]; then
    for n in $SUITE_CASES; do
        if [[ -f tests/guest/cases/${n%@*}.sh ]]; then cases+=("$n")
        else echo "FAIL suite-cases/$n: no tests/guest/cases/${n%@*}.sh"; status=1; fi
    done
else
    for c in tests/guest/cases/*.sh; do c=${c##*/}; cases+=("${c%.sh}"); done
fi
suite_t0=$SECONDS
for name in "${cases[@]}"; do
    echo "== $name"
    t0=${EPOCHREALTIME/./}
    if [[ $name == *@* ]]; then
        RELEASE=${name#*@} timeout "$limit" bash "tests/guest/cases/${name%@*}.sh"
    else
        timeout "$limit" bash "tests/guest/cases/$name.sh"
    fi
    rc=$?
    t1=${EPOCHREALTIME/./}
    if (( rc == 124 )); then echo "FAIL $name: case killed after ${limit}s"; fi
    (( rc != 0 )) && status=1
    printf '# %s took %d.%ds (suite)\n' "$name" $(( (t1 - t0) / 1000000 )) $(( (t1 - t0) / 100000 % 10 ))
done
echo "# suite took $((SECONDS - suite_t0))s"
exit $status
