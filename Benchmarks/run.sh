#!/usr/bin/env bash
# WorkspaceBridge benchmark suite (`make bench` runs this).
#
#   bash Benchmarks/run.sh                 build the server (release, static stdlib), run all
#   WB_BIN=/path/to/workspace-bridge bash Benchmarks/run.sh      use that binary, no server build
#   WB_SKIP_CODEC=1 ...                    skip the in-process codec benchmark (and its build)
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
busy=$(ps -eo stat=,pid=,comm= | awk -v me=$$ '$1 ~ /^R/ && $3 !~ /^(ps|awk)$/' | wc -l)
if (( busy > 0 )); then log "warning: $busy other runnable processes; figures may be disturbed"; fi

FAILED=0
client() {  # client LABEL FRAMING TESTS [bench_client options...] -- COMMAND...
    local label=$1 framing=$2 tests=$3
    shift 3
    log "$label $framing: $tests"
    local rc=0
    "$OUT/bench_client" --label "$label" --framing "$framing" --tests "$tests" "$@" >> "$RESULTS" || rc=$?
    if (( rc != 0 )); then
        log "  bench_client exited $rc (see the error line in $RESULTS)"
        FAILED=1
    fi
}

SERVER=("$WB_BIN" --enable-debug-methods)
for framing in lsp ndjson; do
    : > "$OUT/server-$framing.log"
    # floor and server alternate so that both see the same machine state
    client floor "$framing" rtt,pipe,rss,spawn -- "$OUT/echo_peer"
    client server "$framing" rtt,pipe,blob,rss,spawn --child-stderr "$OUT/server-$framing.log" -- "${SERVER[@]}"
done

# Supplementary: both processes pinned to one CPU (no cross-CPU wake-up in the round trip).
if command -v taskset > /dev/null; then
    for framing in lsp ndjson; do
        client floor-1cpu "$framing" rtt -- taskset -c 0 "$OUT/echo_peer"
        client server-1cpu "$framing" rtt --child-stderr "$OUT/server-$framing.log" -- taskset -c 0 "${SERVER[@]}"
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
