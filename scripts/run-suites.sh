#!/usr/bin/env bash
# The suites of `make test`, every one run to its end even when an earlier one failed; then the
# exit status is non-zero and the last lines name every suite that failed. Each suite's own
# output is left whole (pytest's summary line, swift test's), since CI reads them.
#   SWIFT=swift MAKE=make bash scripts/run-suites.sh        (the Makefile passes both)
#   SUITES="unit e2e" bash scripts/run-suites.sh            only those suites, in this order
set -uo pipefail
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}
MAKE=${MAKE:-make}

run_unit()    { $SWIFT test; }
run_e2e()     { python3 -m pytest -q Tests/e2e; }
run_python()  { python3 -m pytest -q clients/python/tests; }
run_clients() { $MAKE --no-print-directory clients; }
run_dist()    { $MAKE --no-print-directory dist && $MAKE --no-print-directory dist-test; }
run_fuzz()    { $MAKE --no-print-directory fuzz; }

read -r -a suites <<< "${SUITES:-unit e2e python clients dist fuzz}"
failed=()
for s in "${suites[@]}"; do
    declare -F "run_$s" > /dev/null || { echo "run-suites: no suite named $s" >&2; exit 2; }
    start=$(date +%s)
    echo "=== suite $s: started $(date -u '+%H:%M:%S UTC')"
    "run_$s"
    rc=$?
    took=$(( $(date +%s) - start ))
    if [[ $rc -eq 0 ]]; then
        echo "=== suite $s: passed in ${took} s"
    else
        echo "=== suite $s: FAILED (exit status $rc) in ${took} s"
        failed+=("$s")
    fi
done
if [[ ${#failed[@]} -gt 0 ]]; then
    echo "=== make test: ${#failed[@]} of ${#suites[@]} suites failed: ${failed[*]}"
    exit 1
fi
echo "=== make test: all ${#suites[@]} suites passed: ${suites[*]}"
