#!/usr/bin/env bash
# WorkspaceBridge benchmark suite (`make bench` runs this).
#
#   bash Benchmarks/run.sh                 build the server (release, static stdlib), run all
#   WB_BIN=/path/to/workspace-bridge bash Benchmarks/run.sh      use that binary, no server build
#   WB_SKIP_CODEC=1 ...                    skip the in-process codec benchmark (and its build)
#   WB_ROUNDS=N ...                        rounds of the round-trip and pipelined phases (3)
#   WB_SKIP_FILES=1 ...                    skip the workspace file API benchmarks
#   WB_ONLY_FILES=1 ...                    run only them (no ping/pipe/spawn/codec phases)
#   WB_FILES_DIR=DIR ...                   where their temporary trees go (default: /tmp, else
#                                          /work when /tmp has under 5 GiB free); removed at the end
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
gcc -O2 -Wall -Wextra -o "$OUT/fs_bench" "$HERE/fs_bench.c"

if [[ -z "${WB_BIN:-}" ]]; then
    log "building the server: swift build -c release --static-swift-stdlib"
    (cd "$ROOT" && swift build -c release --static-swift-stdlib >&2)
    WB_BIN="$(cd "$ROOT" && swift build -c release --static-swift-stdlib --show-bin-path)/workspace-bridge"
fi
[[ -x "$WB_BIN" ]] || { echo "server binary not found: $WB_BIN" >&2; exit 1; }

CODEC_BIN=""
if [[ -z "${WB_SKIP_CODEC:-}" && -z "${WB_ONLY_FILES:-}" ]]; then
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
busy=$(ps -eo stat=,pid=,ppid=,comm= | awk '$1 ~ /^R/ && $2 != 2 && $3 != 2 && $4 !~ /^(ps|awk|bash)$/ {print $4}' | tr '\n' ' ')
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
if [[ -n "${WB_ONLY_FILES:-}" ]]; then
    log "WB_ONLY_FILES: skipping the ping, pipelined, payload, spawn and memory phases"
else
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
fi  # WB_ONLY_FILES

# ---------------- workspace files ----------------
# The file API against what the system does without the server, alternating in rounds so
# both see the same machine state; every request in ndjson framing. Trees are made before
# the server starts (it watches nothing unless asked) and removed at the end.
fsb() {  # fsb ARGS...: fs_bench, figures appended to the results
    local rc=0
    "$OUT/fs_bench" "$@" >> "$RESULTS" || rc=$?
    if (( rc != 0 )); then log "  fs_bench $1 exited $rc"; FAILED=1; fi
}
note() {  # note WHAT TEXT: a test that did not run, for the report
    log "skipped $1: $2"
    python3 -c 'import json, sys; print(json.dumps({"test": "skipped", "what": sys.argv[1], "reason": sys.argv[2]}))' "$1" "$2" >> "$RESULTS"
}
free_gib() { df -Pk "$1" 2>/dev/null | awk 'NR == 2 {printf "%.1f", $4 / 1048576}'; }

FS_TMP=""
cleanup_files() { if [[ -n "$FS_TMP" && -d "$FS_TMP" ]]; then rm -rf "$FS_TMP"; fi; }
trap cleanup_files EXIT
if [[ -z "${WB_SKIP_FILES:-}" ]]; then
    FILE_ROUNDS=${WB_FILE_ROUNDS:-3}
    BIG=1
    base=${WB_FILES_DIR:-}
    if [[ -z "$base" ]]; then
        for d in /tmp /work; do
            if [[ -d "$d" ]] && awk -v f="$(free_gib "$d")" 'BEGIN {exit !(f >= 5)}'; then base=$d; break; fi
        done
    fi
    if [[ -z "$base" ]]; then
        base=/tmp
        BIG=0
        note "1 GiB tests" "under 5 GiB free in /tmp ($(free_gib /tmp) GiB) and /work ($(free_gib /work) GiB): importFile and the 1 GiB memory test did not run"
    fi
    FS_TMP=$(mktemp -d "$base/wb-bench.XXXXXX")
    WS="$FS_TMP/ws"
    WORD=zqxjfrobnicate
    FSERVER=("$WB_BIN" --local-root "$WS")
    FLOG="$OUT/server-files.log"
    : > "$FLOG"
    log "workspace files: making the trees in $FS_TMP ($(free_gib "$base") GiB free)"
    t0=$(date +%s.%N)
    mkdir -p "$WS/bench" "$WS/range" "$FS_TMP/host" "$FS_TMP/dd" "$FS_TMP/loop"
    "$OUT/fs_bench" gen-tree "$WS/list" 1000 100
    t_list=$(date +%s.%N)
    "$OUT/fs_bench" gen-text "$WS/search" 20000 10000 "$WORD" 1000
    "$OUT/fs_bench" gen-file "$WS/range/text64m.txt" 67108864 text
    "$OUT/fs_bench" gen-file "$WS/range/bin64m.bin" 67108864 random
    "$OUT/fs_bench" gen-file "$FS_TMP/dd/src4k" 4096 text4k
    if (( BIG )); then
        "$OUT/fs_bench" gen-file "$FS_TMP/host/big1g.bin" 1073741824 random
        mkdir -p "$WS/big"
        ln "$FS_TMP/host/big1g.bin" "$WS/big/big1g.bin"  # the same inode: no second GiB
    fi
    t1=$(date +%s.%N)
    python3 -c 'import json, sys; print(json.dumps({"test": "files_env", "dir": sys.argv[1], "fs": sys.argv[2], "free_gib": float(sys.argv[3]), "setup_seconds": round(float(sys.argv[4]) - float(sys.argv[8]), 1), "tree_seconds": round(float(sys.argv[5]) - float(sys.argv[8]), 1), "big": sys.argv[6] == "1", "word": sys.argv[7]}))' \
        "$FS_TMP" "$(stat -f -c %T "$FS_TMP")" "$(free_gib "$base")" "$t1" "$t_list" "$BIG" "$WORD" "$t0" >> "$RESULTS"

    # 1, 2: 4 KiB loadFile / saveFile round trips; durable saves against dd and a C loop.
    for (( round = 1; round <= FILE_ROUNDS; round++ )); do
        client floor-files ndjson echo4k --rtt 10000 --warmup 1000 -- "$OUT/echo_peer"
        client server-files ndjson rtt,load4k,save4k --rtt 10000 --warmup 1000 --save-runs 200 --child-stderr "$FLOG" -- "${FSERVER[@]}"
        log "dd conv=fsync x200, C fsync loop x200"
        fsb exec --label dd --runs 200 --warmup 10 -- dd if="$FS_TMP/dd/src4k" of="$FS_TMP/dd/dst4k" bs=4096 count=1 conv=fsync status=none
        fsb fsync-loop --label fsync-loop "$FS_TMP/loop" 200
    done
    if command -v taskset > /dev/null && (( $(nproc) >= 2 )); then
        BENCH_PREFIX=(taskset -c 0)
        client floor-files-samecpu ndjson echo4k --rtt 10000 --warmup 1000 -- taskset -c 0 "$OUT/echo_peer"
        client server-files-samecpu ndjson rtt,load4k --rtt 10000 --warmup 1000 --child-stderr "$FLOG" -- taskset -c 0 "${FSERVER[@]}"
        client floor-files-crosscpu ndjson echo4k --rtt 10000 --warmup 1000 -- taskset -c 1 "$OUT/echo_peer"
        client server-files-crosscpu ndjson rtt,load4k --rtt 10000 --warmup 1000 --child-stderr "$FLOG" -- taskset -c 1 "${FSERVER[@]}"
        BENCH_PREFIX=()
    fi

    # 3: 64 MiB in 1 MiB ranges, base64 (random bytes) and utf8 (text), against cat and base64.
    for (( round = 1; round <= FILE_ROUNDS; round++ )); do
        log "cat, base64 of 64 MiB"
        fsb exec --label cat-bin --runs 5 --warmup 1 -- cat "$WS/range/bin64m.bin"
        fsb exec --label cat-text --runs 5 --warmup 1 -- cat "$WS/range/text64m.txt"
        fsb exec --label base64 --runs 3 --warmup 1 -- base64 "$WS/range/bin64m.bin"
        client server-files ndjson range --range-path range/bin64m.bin --range-total 67108864 --encoding base64 --passes 3 --warm-passes 1 --child-stderr "$FLOG" -- "${FSERVER[@]}"
        client server-files ndjson range --range-path range/text64m.txt --range-total 67108864 --encoding utf8 --passes 3 --warm-passes 1 --child-stderr "$FLOG" -- "${FSERVER[@]}"
    done

    # 4: recursive listing of 1,000 folders x 100 files, 10,000 per page, against find.
    for (( round = 1; round <= FILE_ROUNDS; round++ )); do
        log "find -printf over 101,000 entries"
        fsb exec --label find --runs 3 --warmup 1 -- find "$WS/list" -printf '%p %s %T@\n'
        client server-files ndjson list --list-path list --list-limit 10000 --passes 1 --warm-passes 1 --child-stderr "$FLOG" -- "${FSERVER[@]}"
    done

    # 5: literal search of 20,000 files (200 MB), warm cache, against grep and rg; the server's
    # default is case-insensitive, so both cases, each against the tools in the same case.
    for (( round = 1; round <= FILE_ROUNDS; round++ )); do
        log "rg, grep over 200 MB"
        fsb exec --label rg --runs 2 --warmup 1 -- rg -n "$WORD" "$WS/search"
        fsb exec --label grep --runs 2 --warmup 1 -- grep -rn "$WORD" "$WS/search"
        fsb exec --label rg-i --runs 2 --warmup 1 -- rg -n -i "$WORD" "$WS/search"
        fsb exec --label grep-i --runs 2 --warmup 1 -- grep -rn -i "$WORD" "$WS/search"
        client server-files ndjson search --search-query "$WORD" --search-path search --search-case sensitive --passes 1 --warm-passes 1 --child-stderr "$FLOG" -- "${FSERVER[@]}"
        client server-files-i ndjson search --search-query "$WORD" --search-path search --passes 1 --warm-passes 1 --child-stderr "$FLOG" -- "${FSERVER[@]}"
    done

    if (( BIG )); then
        # 6: importFile of 1 GiB against cp + sync; each run starts with nothing dirty and no
        # destination; one unmeasured copy first, then 3 rounds in alternating order.
        import_run() {  # import_run cp|server [fs_bench label]
            rm -f "$FS_TMP/host/copy.bin" "$WS/bench/import.bin"
            sync
            if [[ $1 == cp ]]; then
                log "cp 1 GiB && sync"
                fsb exec --label "${2:-cp-sync}" --runs 1 -- sh -c 'cp "$1" "$2" && sync' sh "$FS_TMP/host/big1g.bin" "$FS_TMP/host/copy.bin"
            else
                client server-files ndjson import --import-source "$FS_TMP/host/big1g.bin" --import-path bench/import.bin --passes 1 --warm-passes 0 --child-stderr "$FLOG" -- "${FSERVER[@]}"
            fi
        }
        import_run cp cp-sync-warmup
        for (( round = 1; round <= 3; round++ )); do
            if (( round % 2 )); then import_run server; import_run cp; else import_run cp; import_run server; fi
        done
        rm -f "$FS_TMP/host/copy.bin" "$WS/bench/import.bin"
        # 7: peak memory of a fresh server paging through 1 GiB in 1 MiB base64 ranges.
        client server-files-rss ndjson range --range-path big/big1g.bin --range-total 1073741824 --encoding base64 --passes 1 --warm-passes 0 --child-stderr "$FLOG" -- "${FSERVER[@]}"
    fi
    log "removing $FS_TMP"
    cleanup_files
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
