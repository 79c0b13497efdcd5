#!/bin/bash
# The in-guest test suite: runs every tests/guest/cases/*.sh in one boot (tests/runner.py calls
#   tests/guest/run --timeout N -- tests/guest/suite.sh). Each case prints PASS/FAIL lines; the suite exits non-zero
# if any case failed. A case that runs too long is killed (CASE_LIMIT seconds) and reported.
set -u
cd "$(dirname "$0")/../.."
export REPO=$PWD
limit=${CASE_LIMIT:-1200}
status=0
for c in tests/guest/cases/*.sh; do
    name=$(basename "$c" .sh)
    echo "== $name"
    timeout "$limit" bash "$c"
    rc=$?
    if (( rc == 124 )); then echo "FAIL $name: case killed after ${limit}s"; fi
    (( rc != 0 )) && status=1
done
exit $status
