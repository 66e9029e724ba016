#!/usr/bin/env bash
# WorkspaceBridge benchmark suite (`make bench` runs this).
#
#   bash Benchmarks/run.sh                 build the server (release, static stdlib), run all
#   WB_BIN=/path/to/workspace-bridge bash Benchmarks/run.sh      use that binary, no server build
#   WB_SKIP_CODEC=1 ...                    skip the in-process codec benchmark (and its build)
#   WB_ROUNDS=N ...                        rounds of the round-trip and pipelined phases (3)
#
# Writes Benchmarks/out/results.jsonl (raw figures, one JSON object per line), the server's
# stderr in Benchmarks/out/server-*.log, and a fresh Benchmarks/README.md.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$HERE")
OUT="$HERE/out"
mkdir -p "$OUT"
RESULTS="$OUT/results.jsonl"
: > "$RESULTS"
START=$(date +%s)

log() { printf '[bench %3ss] %s\n' "$(( $(date +%s) - START ))" "$*" >&2; }

log "building bench_client and echo_peer"
gcc -O2 -Wall -Wextra -o "$OUT/bench_client" "$HERE/bench_client.c"
gcc -O2 -Wall -Wextra -o "$OUT/echo_peer" "$HERE/echo_peer.c"

if [[ -z "${WB_BIN:-}" ]]; then
    log "building the server: swift build -c release --static-swift-stdlib"
    (cd "$ROOT" && swift build -c release --static-swift-stdlib >&2)
    WB_BIN="$(cd "$ROOT" && swift build -c release --static-swift-stdlib --show-bin-path)/workspace-bridge"
fi
[[ -x "$WB_BIN" ]] || { echo "server binary not found: $WB_BIN" >&2; exit 1; }

CODEC_BIN=""
if [[ -z "${WB_SKIP_CODEC:-}" ]]; then
    log "building codec_bench"
    # The root package pins its dependencies in a Package.resolved that is not committed;
    # reuse it when present so no network resolution is needed.
    if [[ -f "$ROOT/Package.resolved" && ! -f "$HERE/codec_bench/Package.resolved" ]]; then
        cp "$ROOT/Package.resolved" "$HERE/codec_bench/Package.resolved"
    fi
    swift build -c release --package-path "$HERE/codec_bench" --scratch-path "$ROOT/.build-bench" >&2
    CODEC_BIN="$ROOT/.build-bench/release/codec_bench"
fi

# Other work on the machine (a build, tests) distorts every figure: record the load.
export WB_LOAD_BEFORE
WB_LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
busy=$(ps -eo stat=,comm= | awk '$1 ~ /^R/ && $2 !~ /^(ps|awk|bash)$/ {print $2}' | tr '\n' ' ')
if [[ -n "$busy" ]]; then log "warning: other processes running ($busy); figures may be disturbed"; fi

FAILED=0
BENCH_PREFIX=()
client() {  # client LABEL FRAMING TESTS [bench_client options...] -- COMMAND...
    local label=$1 framing=$2 tests=$3
    shift 3
    log "$label $framing: $tests"
    local rc=0
    "${BENCH_PREFIX[@]}" "$OUT/bench_client" --label "$label" --framing "$framing" --tests "$tests" "$@" >> "$RESULTS" || rc=$?
    if (( rc != 0 )); then
        log "  bench_client exited $rc (see the error line in $RESULTS)"
        FAILED=1
    fi
}

SERVER=("$WB_BIN" --enable-debug-methods)
# Floor and server alternate so that both see the same machine state. Round trips and
# pipelined throughput swing with where the scheduler puts the two processes, so they run in
# ROUNDS rounds and the report takes the median of each figure over the rounds.
ROUNDS=${WB_ROUNDS:-3}
for framing in lsp ndjson; do
    : > "$OUT/server-$framing.log"
    client floor "$framing" rtt,pipe,rss,spawn -- "$OUT/echo_peer"
    client server "$framing" rtt,pipe,blob,rss,spawn --child-stderr "$OUT/server-$framing.log" -- "${SERVER[@]}"
done
for (( round = 2; round <= ROUNDS; round++ )); do
    for framing in lsp ndjson; do
        client floor "$framing" rtt,pipe -- "$OUT/echo_peer"
        client server "$framing" rtt,pipe --child-stderr "$OUT/server-$framing.log" -- "${SERVER[@]}"
    done
done

# Round trips with the processes placed by hand, so that floor and server see the same
# scheduling: both on CPU 0 ("samecpu"), or the client on CPU 0 and the peer on CPU 1
# ("crosscpu": every round trip wakes the other CPU twice).
if command -v taskset > /dev/null && (( $(nproc) >= 2 )); then
    for (( round = 1; round <= 2; round++ )); do
        for framing in lsp ndjson; do
            BENCH_PREFIX=(taskset -c 0)
            client floor-samecpu "$framing" rtt -- taskset -c 0 "$OUT/echo_peer"
            client server-samecpu "$framing" rtt --child-stderr "$OUT/server-$framing.log" -- taskset -c 0 "${SERVER[@]}"
            client floor-crosscpu "$framing" rtt -- taskset -c 1 "$OUT/echo_peer"
            client server-crosscpu "$framing" rtt --child-stderr "$OUT/server-$framing.log" -- taskset -c 1 "${SERVER[@]}"
            BENCH_PREFIX=()
        done
    done
fi

if [[ -n "$CODEC_BIN" ]]; then
    log "codec_bench"
    "$CODEC_BIN" >> "$RESULTS" || { log "codec_bench failed"; FAILED=1; }
fi

log "writing README.md"
export WB_BIN WB_LOAD_AFTER
WB_LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)
python3 "$HERE/report.py" "$RESULTS" "$HERE/README.md"
log "done in $(( $(date +%s) - START )) s"
exit $FAILED
