#!/usr/bin/env bash
# Builds the fuzz targets with libFuzzer and AddressSanitizer and runs each for a bounded time.
#
#   Tests/Fuzz/run.sh [seconds-per-target] [target...]
#
# Seconds: the argument, else $FUZZ_SECONDS, else 60. Targets: framing json paths journal
# artefact-names peer (all by default). Seeds come from Tests/Fuzz/corpus/<target>/ and
# Tests/Fuzz/regressions/<target>/; new corpus units and crashes go to $FUZZ_WORK
# (default .build-fuzz/work, never committed). Exits non-zero when any target finds a crash,
# a broken invariant, a leak or a timeout, after printing the input as hex.
set -euo pipefail

cd "$(dirname "$0")/../.."
seconds="${1:-${FUZZ_SECONDS:-60}}"
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(framing json paths journal artefact-names peer)
scratch="${FUZZ_SCRATCH:-.build-fuzz}"
work="${FUZZ_WORK:-$scratch/work}"

product() {
    case "$1" in
        framing) echo FuzzFraming ;; json) echo FuzzJSON ;; paths) echo FuzzPaths ;;
        journal) echo FuzzJournal ;; artefact-names) echo FuzzArtefactNames ;; peer) echo FuzzPeer ;;
        *) echo "unknown target: $1" >&2; exit 2 ;;
    esac
}
max_len() {
    case "$1" in
        framing) echo 4096 ;; json) echo 4096 ;; paths) echo 96 ;; journal) echo 64 ;; artefact-names) echo 2048 ;; peer) echo 8192 ;;
    esac
}

start=$(date +%s)
for t in "${targets[@]}"; do
    # gold cannot link libFuzzer's main next to SwiftPM's entry-point alias: use lld.
    swift build -c debug --scratch-path "$scratch" --product "$(product "$t")" \
        -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING -Xswiftc -use-ld=lld \
        -Xcc -fsanitize=fuzzer-no-link,address 2>&1 | grep -v "Cannot export local symbol" | grep -E "error|warning:|Compiling|Build" || true
    [ -x "$scratch/debug/$(product "$t")" ] || { echo "build of $(product "$t") failed" >&2; exit 2; }
done
built=$(date +%s)
echo "fuzz build: $((built - start)) s"

# The Swift runtime's backtracer hangs under ASan; libFuzzer reports crashes itself.
export SWIFT_BACKTRACE=enable=no
failed=()
for t in "${targets[@]}"; do
    mkdir -p "$work/corpus/$t" "$work/artifacts/$t"
    seeds=("Tests/Fuzz/corpus/$t")
    [ -d "Tests/Fuzz/regressions/$t" ] && seeds+=("Tests/Fuzz/regressions/$t")
    echo "== $t: ${seconds} s"
    log="$work/$t.log"
    if "$scratch/debug/$(product "$t")" "$work/corpus/$t" "${seeds[@]}" \
        -max_total_time="$seconds" -max_len="$(max_len "$t")" -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="$work/artifacts/$t/" -print_final_stats=1 >"$log" 2>&1; then
        grep -E "^#[0-9]+.*DONE|stat::number_of_executed_units|stat::new_units_added" "$log" || tail -3 "$log"
    else
        failed+=("$t")
        grep -E "invariant broken|ERROR: AddressSanitizer|ERROR: libFuzzer|SUMMARY|Fatal error|deadly signal" "$log" | head -5 || true
        for crash in "$work/artifacts/$t"/*; do
            [ -f "$crash" ] || continue
            echo "-- $t input $crash (move it to Tests/Fuzz/regressions/$t/ once fixed):"
            od -An -tx1 -v "$crash" | tr -s ' \n' ' ' | fold -w 96
            echo
        done
        echo "-- full log: $log"
    fi
done
echo "fuzz total: $(( $(date +%s) - start )) s (build $((built - start)) s)"
if [ ${#failed[@]} -gt 0 ]; then
    echo "FAILED: ${failed[*]}" >&2
    exit 1
fi
