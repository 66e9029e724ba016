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
#                                          (the storage and session trees go there too)
#   WB_SKIP_STORAGE=1 ...                  skip the storage (migrate, getStorageInfo) and agent
#                                          session benchmarks (issue 17's fork, export + import,
#                                          compacted recovery and prune, and issue 25's session/search
#                                          against rg and session/list of 1,000 sessions, run in a quick run too)
#   WB_ONLY_STORAGE=1 ...                  run only them (no ping/pipe/spawn/codec/file phases)
#   WB_SKIP_MCP=1 ...                      skip the MCP benchmarks (and the peer's install)
#   WB_ONLY_MCP=1 ...                      run only them; WB_MCP_ROUNDS=N rounds of tools/call in
#                                          the default placement (3), half as many pinned
#   WB_SKIP_ACP=1 ...                      skip the ACP face's benchmarks (Benchmarks/acp_bench.py)
#   WB_OLD_REF=REF ...                     the previous release measured beside the server: a git
#                                          ref of this clone, built here (default 94a74bb, the last
#                                          state before issue 15's redesign); WB_OLD_REF=none skips it
#   WB_OLD_BIN=/path/to/workspace-bridge   use that binary as the previous release (no build)
#   WB_QUICK=1 ...                         a quick run (a few minutes): small trees, one round,
#                                          no 1 GiB tests, only issue 17's session phase; the report goes to
#                                          Benchmarks/out/README.quick.md (Benchmarks/README.md and the
#                                          plots are left alone). For checking the machinery, not figures.
#
# A full run takes roughly 10 minutes on a 2-CPU machine: about 6 of measurements (the 1 GiB
# copies, migrate and the session phases are the longest), plus the release builds of the server,
# codec_bench and, the first time, the previous release (kept in Benchmarks/out/old-build).
# A quick run takes about 4 minutes with those builds. The report states the time of its run.
#
# A baseline tool that is not installed (`scripts/setup.sh --bench` installs them all) is not run:
# the results get a "skipped" line naming it, the report says "not measured" and why wherever its
# ratio would be, and that alone does not make the exit status non-zero. A baseline that runs and
# fails is a failure (its figures are not used, and the exit status is non-zero).
#
# The server binary is copied to Benchmarks/out/workspace-bridge first and that copy is what
# runs, so a rebuild during the run changes nothing.
# Writes Benchmarks/out/results.jsonl (raw figures, one JSON object per line), the server's
# stderr in Benchmarks/out/server-*.log, a fresh Benchmarks/README.md, and its plots
# Benchmarks/latency-percentiles.png and Benchmarks/throughput-vs-payload.png (report_plots.py,
# with matplotlib from a virtual environment in Benchmarks/out/plot-venv).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$HERE")
OUT="$HERE/out"
mkdir -p "$OUT"
RESULTS="$OUT/results.jsonl"
: > "$RESULTS"
START=$(date +%s)

log() { printf '[bench %3ss] %s\n' "$(( $(date +%s) - START ))" "$*" >&2; }
QUICK=${WB_QUICK:-}
q() {  # q FULL QUICK: the figure for this run
    if [[ -n "$QUICK" ]]; then echo "$2"; else echo "$1"; fi
}
MIN_FREE_GIB=$(q 5 1)
if [[ -n "$QUICK" ]]; then log "WB_QUICK: small trees, one round, no 1 GiB tests, no session phases"; fi

log "building bench_client, echo_peer, fs_bench and mcp_bench"
gcc -O2 -Wall -Wextra -o "$OUT/bench_client" "$HERE/bench_client.c"
gcc -O2 -Wall -Wextra -o "$OUT/echo_peer" "$HERE/echo_peer.c"
gcc -O2 -Wall -Wextra -o "$OUT/fs_bench" "$HERE/fs_bench.c"
gcc -O2 -Wall -Wextra -o "$OUT/mcp_bench" "$HERE/mcp_bench.c" && MCP_BENCH="$OUT/mcp_bench"

if [[ -z "${WB_BIN:-}" ]]; then
    log "building the server: swift build -c release --static-swift-stdlib"
    (cd "$ROOT" && swift build -c release --static-swift-stdlib >&2)
    WB_BIN="$(cd "$ROOT" && swift build -c release --static-swift-stdlib --show-bin-path)/workspace-bridge"
fi
[[ -x "$WB_BIN" ]] || { echo "server binary not found: $WB_BIN" >&2; exit 1; }
export WB_BIN_SOURCE WB_BIN_BUILT
WB_BIN_SOURCE=$(cd "$(dirname "$WB_BIN")" && pwd)/$(basename "$WB_BIN")
WB_BIN_BUILT=$(date -u -r "$WB_BIN" '+%Y-%m-%d %H:%M:%S UTC')
if [[ "$WB_BIN_SOURCE" != "$OUT/workspace-bridge" ]]; then
    cp "$WB_BIN" "$OUT/workspace-bridge.tmp" && mv -f "$OUT/workspace-bridge.tmp" "$OUT/workspace-bridge"
fi
WB_BIN="$OUT/workspace-bridge"
log "server: $WB_BIN_SOURCE (built $WB_BIN_BUILT), copied to $WB_BIN"

# ---------------- the previous release ----------------
# The figures issue 15 names (ping, pipelined, spawn, RSS, 1 MiB result, listFiles, search, MCP
# read_file) are measured for the previous release too, in the same rounds as the new binary
# and its baselines, so both see the same machine state. It is built here from a git ref of this
# clone (`git archive` into Benchmarks/out/old-src, its own scratch path Benchmarks/out/old-build,
# both kept between runs), or given as a binary. One that cannot be had is "not measured (why)"
# in the report, and that alone is no failure of the run; neither is a phase the old binary fails.
OLD_REF=${WB_OLD_REF:-94a74bb}
OLD_BIN=""
OLD_WHY=""
OLD_COMMIT=""
OLD_BUILD_S=""
old_env() {  # one results line: what the old binary is, or why there is none
    python3 -c 'import json, sys; a = sys.argv; print(json.dumps({"test": "old_env", "ref": a[1], "commit": a[2] or None, "measured": a[3] == "", "reason": a[3] or None, "binary": a[4] or None, "version": a[5] or None, "build_seconds": float(a[6]) if a[6] else None, "given": a[7] == "1"}))' \
        "$OLD_REF" "$OLD_COMMIT" "$OLD_WHY" "${WB_OLD_BIN:-${OLD_BIN:+Benchmarks/out/old-build (from $OLD_REF)}}" \
        "$([[ -n "$OLD_BIN" ]] && "$OLD_BIN" --version 2>&1 | head -1)" "$OLD_BUILD_S" "${WB_OLD_BIN:+1}" >> "$RESULTS"
}
build_old() {  # sets OLD_BIN, or OLD_WHY
    local src="$OUT/old-src" scratch="$OUT/old-build" short bin t0
    if ! OLD_COMMIT=$(git -C "$ROOT" rev-parse --verify -q "$OLD_REF^{commit}" 2> /dev/null); then
        OLD_COMMIT=""
        OLD_WHY="git ref \`$OLD_REF\` is not in this clone (a shallow clone? \`git fetch --unshallow\`)"
        return
    fi
    short=${OLD_COMMIT:0:7}
    if [[ "$(cat "$src/.wb-old-commit" 2> /dev/null)" != "$OLD_COMMIT" ]]; then
        log "old binary: git archive $OLD_REF ($short) into $src"
        rm -rf "$src"
        mkdir -p "$src"
        if ! git -C "$ROOT" archive "$OLD_COMMIT" | tar -x -C "$src"; then
            OLD_WHY="\`git archive $short\` failed"
            return
        fi
        echo "$OLD_COMMIT" > "$src/.wb-old-commit"
    fi
    if [[ -f "$ROOT/Package.resolved" && ! -f "$src/Package.resolved" ]]; then
        cp "$ROOT/Package.resolved" "$src/Package.resolved"  # no network resolution when the pins fit
    fi
    log "old binary: swift build -c release --static-swift-stdlib of $OLD_REF ($short), log in $OUT/old-build.log"
    t0=$(date +%s)
    if ! (cd "$src" && swift build -c release --static-swift-stdlib --scratch-path "$scratch") > "$OUT/old-build.log" 2>&1; then
        local last
        last=$(grep -m1 'error:' "$OUT/old-build.log" || tail -n 1 "$OUT/old-build.log")
        last=${last%% (compiled with*}  # a manifest error's compiler command line says nothing
        OLD_WHY="\`swift build\` of $short failed: ${last:0:200} (Benchmarks/out/old-build.log)"
        return
    fi
    OLD_BUILD_S=$(( $(date +%s) - t0 ))
    bin="$(cd "$src" && swift build -c release --static-swift-stdlib --scratch-path "$scratch" --show-bin-path)/workspace-bridge"
    if [[ ! -x "$bin" ]]; then OLD_WHY="the build of $short made no workspace-bridge"; return; fi
    cp "$bin" "$OUT/workspace-bridge-old.tmp" && mv -f "$OUT/workspace-bridge-old.tmp" "$OUT/workspace-bridge-old"
    OLD_BIN="$OUT/workspace-bridge-old"
}
if [[ -n "${WB_OLD_BIN:-}" ]]; then
    OLD_REF=${WB_OLD_REF:-WB_OLD_BIN}  # the label of its column
    if [[ -x "$WB_OLD_BIN" && -f "$WB_OLD_BIN" ]]; then
        cp "$WB_OLD_BIN" "$OUT/workspace-bridge-old.tmp" && mv -f "$OUT/workspace-bridge-old.tmp" "$OUT/workspace-bridge-old"
        OLD_BIN="$OUT/workspace-bridge-old"
    else
        OLD_WHY="WB_OLD_BIN=$WB_OLD_BIN is not an executable file"
    fi
elif [[ "$OLD_REF" == none ]]; then
    OLD_WHY="WB_OLD_REF=none"
else
    build_old
fi
if [[ -n "$OLD_BIN" ]] && ! "$OLD_BIN" --version > /dev/null 2>&1; then
    OLD_WHY="\`$OLD_BIN --version\` failed: it does not run here"
    OLD_BIN=""
fi
old_env
if [[ -n "$OLD_BIN" ]]; then log "old binary ($OLD_REF): $OLD_BIN"; else log "old binary: not measured ($OLD_WHY)"; fi
old_client() {  # like client, for the old binary: its failure is noted, not the run's
    [[ -n "$OLD_BIN" ]] || return 0
    local f0=$FAILED
    client "$@"
    if (( FAILED && !f0 )); then log "  (the old binary's phase failed: its figures are not used; not a failure of the run)"; fi
    FAILED=$f0
}
if [[ -n "${WB_ONLY_STORAGE:-}" ]]; then WB_ONLY_FILES=""; WB_SKIP_FILES=1; WB_SKIP_CODEC=1; fi
if [[ -n "${WB_ONLY_MCP:-}" ]]; then WB_ONLY_FILES=""; WB_ONLY_STORAGE=""; WB_SKIP_FILES=1; WB_SKIP_CODEC=1; WB_SKIP_STORAGE=1; fi

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
export WB_LOAD_BEFORE WB_BUSY_BEFORE
WB_LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
busy_now() { ps -eo stat=,pid=,ppid=,comm= | awk '$1 ~ /^R/ && $2 != 2 && $3 != 2 && $4 !~ /^(ps|awk|bash)$/ {print $4}' | tr '\n' ' '; }
busy=$(busy_now)
WB_BUSY_BEFORE=$busy
if [[ -n "$busy" ]]; then log "warning: other processes running ($busy); figures may be disturbed"; fi
# Every 5 s: the 1-minute load average and the running processes that are not this run's.
sample_load() {
    while :; do
        printf '%s %s\n' "$(cut -d' ' -f1 /proc/loadavg)" "$(ps -eo stat=,pid=,ppid=,comm= | awk -v me=$$ '
            { st[$2] = $1; pp[$2] = $3; c[$2] = $4 }
            END { for (p in st) if (st[p] ~ /^R/ && p != 2 && pp[p] != 2) {
                      q = p; mine = 0
                      while (q > 1 && (q in pp)) { if (q == me) { mine = 1; break }; q = pp[q] }
                      if (!mine) printf "%s ", c[p] } }')"
        awk '/^Cached:/ {print $2}' /proc/meminfo >> "$OUT/cache-samples.txt"
        sleep 5
    done
}
# ... and the page cache (`Cached`, KiB): some virtual machines reclaim cold page cache within
# seconds, so a file not touched for a while is read from disk again (see the Machine section).
: > "$OUT/cache-samples.txt"
sample_load > "$OUT/load-samples.txt" 2> /dev/null &
SAMPLER=$!
export WB_LOAD_SAMPLES="$OUT/load-samples.txt" WB_CACHE_SAMPLES="$OUT/cache-samples.txt"

FAILED=0
export WB_QUICK="$QUICK"
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
OLD_SERVER=("$OLD_BIN" --enable-debug-methods)
# Floor and server alternate so that both see the same machine state. Round trips and
# pipelined throughput swing with where the scheduler puts the two processes, so they run in
# ROUNDS rounds and the report takes the median of each figure over the rounds.
ROUNDS=${WB_ROUNDS:-$(q 3 1)}
# debug/blob sizes (bytes of string) for the payload sweep; 1 MiB is the headline figure.
BLOB_SIZES=1024,16384,65536,262144,1048576,4194304
if [[ -n "${WB_ONLY_FILES:-}" || -n "${WB_ONLY_STORAGE:-}" || -n "${WB_ONLY_MCP:-}" ]]; then
    log "WB_ONLY_FILES / WB_ONLY_STORAGE / WB_ONLY_MCP: skipping the ping, pipelined, payload, spawn and memory phases"
else
for framing in lsp ndjson; do
    : > "$OUT/server-$framing.log"
    client floor "$framing" rtt,pipe,blob,rss,spawn --blob-bytes "$BLOB_SIZES" -- "$OUT/echo_peer" --blob
    client server "$framing" rtt,pipe,blob,rss,spawn --blob-bytes "$BLOB_SIZES" --child-stderr "$OUT/server-$framing.log" -- "${SERVER[@]}"
    old_client old "$framing" rtt,pipe,blob,rss,spawn --blob-bytes "$BLOB_SIZES" --child-stderr "$OUT/old-$framing.log" -- "${OLD_SERVER[@]}"
done
for (( round = 2; round <= ROUNDS; round++ )); do
    for framing in lsp ndjson; do
        client floor "$framing" rtt,pipe -- "$OUT/echo_peer"
        client server "$framing" rtt,pipe --child-stderr "$OUT/server-$framing.log" -- "${SERVER[@]}"
        old_client old "$framing" rtt,pipe --child-stderr "$OUT/old-$framing.log" -- "${OLD_SERVER[@]}"
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
            old_client old-samecpu "$framing" rtt --child-stderr "$OUT/old-$framing.log" -- taskset -c 0 "${OLD_SERVER[@]}"
            client floor-crosscpu "$framing" rtt -- taskset -c 1 "$OUT/echo_peer"
            client server-crosscpu "$framing" rtt --child-stderr "$OUT/server-$framing.log" -- taskset -c 1 "${SERVER[@]}"
            old_client old-crosscpu "$framing" rtt --child-stderr "$OUT/old-$framing.log" -- taskset -c 1 "${OLD_SERVER[@]}"
            BENCH_PREFIX=()
        done
    done
fi
fi  # WB_ONLY_FILES

# ---------------- workspace files ----------------
# The file API against what the system does without the server, alternating in rounds so
# both see the same machine state; every request in ndjson framing. Trees are made before
# the server starts (it watches nothing unless asked) and removed at the end.
MISSING_NOTED=" "  # the labels of baselines already noted as not installed
fsb() {  # fsb ARGS...: fs_bench, figures appended to the results
    local rc=0 i args=("$@") tool="" label=""
    for (( i = 0; i < ${#args[@]}; i++ )); do
        if [[ ${args[i]} == --label ]]; then label=${args[i + 1]}; fi
        if [[ ${args[i]} == -- ]]; then tool=${args[i + 1]}; break; fi
    done
    if [[ $1 == exec && -n "$tool" ]] && ! command -v "$tool" > /dev/null; then
        # A baseline that is not installed is not measured (and is no failure of the run).
        if [[ "$MISSING_NOTED" != *" $label "* ]]; then
            MISSING_NOTED+="$label "
            python3 -c 'import json, sys; print(json.dumps({"test": "skipped", "what": "the `" + sys.argv[2] + "` baseline (" + sys.argv[1] + ")", "reason": "`" + sys.argv[2] + "` is not installed (scripts/setup.sh --bench installs it)", "baseline": sys.argv[1], "tool": sys.argv[2]}))' "$label" "$tool" >> "$RESULTS"
            log "skipped the $label baseline: $tool is not installed"
        fi
        return 0
    fi
    "$OUT/fs_bench" "$@" >> "$RESULTS" || rc=$?
    if (( rc != 0 )); then log "  fs_bench $1 exited $rc"; FAILED=1; fi
}
note() {  # note WHAT TEXT: a test that did not run, for the report
    log "skipped $1: $2"
    python3 -c 'import json, sys; print(json.dumps({"test": "skipped", "what": sys.argv[1], "reason": sys.argv[2]}))' "$1" "$2" >> "$RESULTS"
}
free_gib() { df -Pk "$1" 2>/dev/null | awk 'NR == 2 {printf "%.1f", $4 / 1048576}'; }

FS_TMP=""
ST_TMP=""
cleanup_files() {
    if [[ -n "$FS_TMP" && -d "$FS_TMP" ]]; then rm -rf "$FS_TMP"; fi
    if [[ -n "$ST_TMP" && -d "$ST_TMP" ]]; then rm -rf "$ST_TMP"; fi
}
stop_sampler() { if [[ -n "${SAMPLER:-}" ]]; then kill "$SAMPLER" 2> /dev/null || true; SAMPLER=""; fi; }
trap 'cleanup_files; stop_sampler' EXIT
pick_base() {  # the folder for temporary trees: WB_FILES_DIR, else /tmp or /work with 5 GiB free
    local d
    if [[ -n "${WB_FILES_DIR:-}" ]]; then echo "$WB_FILES_DIR"; return; fi
    for d in /tmp /work; do
        if [[ -d "$d" ]] && awk -v f="$(free_gib "$d")" -v m="$MIN_FREE_GIB" 'BEGIN {exit !(f >= m)}'; then echo "$d"; return; fi
    done
}
if [[ -z "${WB_SKIP_FILES:-}" ]]; then
    FILE_ROUNDS=${WB_FILE_ROUNDS:-$(q 3 1)}
    BIG=1
    RANGE_BYTES=$(q 67108864 4194304)
    RTT=$(q 10000 1000); RTT_WARM=$(q 1000 100); OPS=$(q 200 20)
    base=${WB_FILES_DIR:-}
    if [[ -z "$base" ]]; then
        for d in /tmp /work; do
            if [[ -d "$d" ]] && awk -v f="$(free_gib "$d")" -v m="$MIN_FREE_GIB" 'BEGIN {exit !(f >= m)}'; then base=$d; break; fi
        done
    fi
    if [[ -n "$QUICK" ]]; then
        BIG=0
        note "1 GiB tests" "a quick run (WB_QUICK)"
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
    OFSERVER=("$OLD_BIN" --local-root "$WS")
    FLOG="$OUT/server-files.log"
    : > "$FLOG"
    log "workspace files: making the trees in $FS_TMP ($(free_gib "$base") GiB free)"
    t0=$(date +%s.%N)
    mkdir -p "$WS/bench" "$WS/range" "$FS_TMP/host" "$FS_TMP/dd" "$FS_TMP/loop"
    "$OUT/fs_bench" gen-tree "$WS/list" "$(q 1000 20)" "$(q 100 10)"
    t_list=$(date +%s.%N)
    "$OUT/fs_bench" gen-text "$WS/search" "$(q 20000 200)" 10000 "$WORD" "$(q 1000 10)"
    "$OUT/fs_bench" gen-file "$WS/range/text64m.txt" "$RANGE_BYTES" text
    "$OUT/fs_bench" gen-file "$WS/range/bin64m.bin" "$RANGE_BYTES" random
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
        client floor-files ndjson echo4k --rtt "$RTT" --warmup "$RTT_WARM" -- "$OUT/echo_peer"
        client server-files ndjson rtt,load4k,save4k --rtt "$RTT" --warmup "$RTT_WARM" --save-runs "$OPS" --child-stderr "$FLOG" -- "${FSERVER[@]}"
        log "dd conv=fsync x200, C fsync loop x200"
        fsb exec --label dd --runs "$OPS" --warmup 10 -- dd if="$FS_TMP/dd/src4k" of="$FS_TMP/dd/dst4k" bs=4096 count=1 conv=fsync status=none
        fsb fsync-loop --label fsync-loop "$FS_TMP/loop" "$OPS"
    done
    if command -v taskset > /dev/null && (( $(nproc) >= 2 )); then
        BENCH_PREFIX=(taskset -c 0)
        client floor-files-samecpu ndjson echo4k --rtt "$RTT" --warmup "$RTT_WARM" -- taskset -c 0 "$OUT/echo_peer"
        client server-files-samecpu ndjson rtt,load4k --rtt "$RTT" --warmup "$RTT_WARM" --child-stderr "$FLOG" -- taskset -c 0 "${FSERVER[@]}"
        client floor-files-crosscpu ndjson echo4k --rtt "$RTT" --warmup "$RTT_WARM" -- taskset -c 1 "$OUT/echo_peer"
        client server-files-crosscpu ndjson rtt,load4k --rtt "$RTT" --warmup "$RTT_WARM" --child-stderr "$FLOG" -- taskset -c 1 "${FSERVER[@]}"
        BENCH_PREFIX=()
    fi

    # 3: 64 MiB in 1 MiB ranges, base64 (random bytes) and utf8 (text), against cat and base64.
    for (( round = 1; round <= FILE_ROUNDS; round++ )); do
        log "cat, base64 of 64 MiB"
        fsb exec --label cat-bin --runs 5 --warmup 1 -- cat "$WS/range/bin64m.bin"
        fsb exec --label cat-text --runs 5 --warmup 1 -- cat "$WS/range/text64m.txt"
        fsb exec --label base64 --runs 3 --warmup 1 -- base64 "$WS/range/bin64m.bin"
        client server-files ndjson range --range-path range/bin64m.bin --range-total "$RANGE_BYTES" --encoding base64 --passes 3 --warm-passes 1 --child-stderr "$FLOG" -- "${FSERVER[@]}"
        client server-files ndjson range --range-path range/text64m.txt --range-total "$RANGE_BYTES" --encoding utf8 --passes 3 --warm-passes 1 --child-stderr "$FLOG" -- "${FSERVER[@]}"
    done

    # 4: recursive listing of 1,000 folders x 100 files, 10,000 per page, against find.
    for (( round = 1; round <= FILE_ROUNDS; round++ )); do
        log "find -printf over 101,000 entries"
        fsb exec --label find --runs 3 --warmup 1 -- find "$WS/list" -printf '%p %s %T@\n'
        client server-files ndjson list --list-path list --list-limit 10000 --passes 1 --warm-passes 1 --child-stderr "$FLOG" -- "${FSERVER[@]}"
        old_client old-files ndjson list --list-path list --list-limit 10000 --passes 1 --warm-passes 1 --child-stderr "$OUT/old-files.log" -- "${OFSERVER[@]}"
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
        old_client old-files ndjson search --search-query "$WORD" --search-path search --search-case sensitive --passes 1 --warm-passes 1 --child-stderr "$OUT/old-files.log" -- "${OFSERVER[@]}"
        old_client old-files-i ndjson search --search-query "$WORD" --search-path search --passes 1 --warm-passes 1 --child-stderr "$OUT/old-files.log" -- "${OFSERVER[@]}"
    done

    # 5c: catastrophic regular expressions over the same 200 MB, against rg running the same
    # pattern (its engine is linear). (a+)+x: no a is followed by an x in these words, so it
    # scans all of the text and finds nothing; (\w+\s?)+[0-9] meets no digit, so every line
    # backtracks without end: the server answers LimitExceeded (matchLimit) at its first line,
    # rg reads everything. The queries go inside a JSON string, so the client's are escaped.
    for (( round = 1; round <= FILE_ROUNDS; round++ )); do
        log "catastrophic patterns over 200 MB: rg and the server"
        fsb exec --label rg-nested --runs 2 --warmup 1 -- rg -n '(a+)+x' "$WS/search"
        fsb exec --label rg-runaway --runs 2 --warmup 1 -- rg -n '(\w+\s?)+[0-9]' "$WS/search"
        client server-nested ndjson search --search-query '(a+)+x' --search-regex 1 --search-path search --passes 1 --warm-passes 1 --child-stderr "$FLOG" -- "${FSERVER[@]}"
        client server-runaway ndjson search --search-query '(\\w+\\s?)+[0-9]' --search-regex 1 --search-path search --passes 1 --warm-passes 1 --child-stderr "$FLOG" -- "${FSERVER[@]}"
    done

    # 5b (issue 27): listing and search honouring ignore files, on a second tree of 1,000
    # folders x 100 files (101,000 entries; 20 x 10 in a quick run) that is a git repository
    # with a realistic .gitignore (Benchmarks/ignore_tree.py: a Node/Python template plus rules
    # that leave out about 19% of the tree, a nested one, a negation), against `rg --files` and
    # `rg -n` (which honour .gitignore in a git repository, as the server does anywhere).
    IGN="$WS/ign"
    IGN_QUERY="of folder 17"
    IGN_ROUNDS=$FILE_ROUNDS
    if ! command -v git > /dev/null; then
        note "listing and search with ignore files" "git is not installed (scripts/setup.sh --bench installs it)"
        IGN_ROUNDS=0
    else
        "$OUT/fs_bench" gen-tree "$IGN" "$(q 1000 20)" "$(q 100 10)"
        python3 "$HERE/ignore_tree.py" "$IGN" >> "$RESULTS"
    fi
    for (( round = 1; round <= IGN_ROUNDS; round++ )); do
        log "rg --files, rg -n over the ignore tree"
        fsb exec --label rg-files-ignore --runs 3 --warmup 1 -- rg --files "$IGN"
        fsb exec --label rg-ignore --runs 3 --warmup 1 -- rg -n "$IGN_QUERY" "$IGN"
        client server-ignore ndjson list --list-path ign --list-limit 10000 --passes 1 --warm-passes 1 --child-stderr "$FLOG" -- "${FSERVER[@]}"
        client server-ignore ndjson search --search-query "$IGN_QUERY" --search-path ign --search-case sensitive --passes 1 --warm-passes 1 --child-stderr "$FLOG" -- "${FSERVER[@]}"
    done

    if (( BIG )); then
        # 6: importFile of 1 GiB against cp + sync; each run starts with nothing dirty and no
        # destination; one unmeasured copy first, then 5 rounds in alternating order (this VM's
        # write-back speed varies from run to run by 2x and more: 3 rounds gave medians 0.5-1.4x).
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
        for (( round = 1; round <= 5; round++ )); do
            if (( round % 2 )); then import_run server; import_run cp; else import_run cp; import_run server; fi
        done
        rm -f "$FS_TMP/host/copy.bin" "$WS/bench/import.bin"
        # 7: peak memory of a fresh server paging through 1 GiB in 1 MiB base64 ranges.
        client server-files-rss ndjson range --range-path big/big1g.bin --range-total 1073741824 --encoding base64 --passes 1 --warm-passes 0 --child-stderr "$FLOG" -- "${FSERVER[@]}"
    fi
    # 8: watching a tree (Benchmarks/watch_bench.py): watchFiles' initial walk of 10,000 folders
    # (1,000 in a quick run), a change's latency and a 10,000-file burst, beside inotifywait -m -r.
    log "server-watch ndjson: watchFiles of $(q 10000 1000) folders, latency, burst vs inotifywait"
    if ! python3 "$HERE/watch_bench.py" --bin "$WB_BIN" --dir "$FS_TMP/watch" --folders "$(q 10000 1000)" \
            --rounds "$(q 3 1)" --stderr "$FLOG" >> "$RESULTS"; then
        log "  watch_bench.py failed (see its error line in the results)"
        FAILED=1
    fi
    log "removing $FS_TMP"
    cleanup_files
fi

# ---------------- storage and agent sessions ----------------
# migrate, getStorageInfo and the session journal against what the system does without the
# server (rsync, cp + sha256sum, find, write + fsync in C) on the same file system in the same
# run, ndjson framing. Every server gets --local-root, --cloud-root and --config-dir inside a
# temporary tree made for the run and removed at the end.
if [[ -n "${WB_SKIP_STORAGE:-}" || -n "${WB_ONLY_FILES:-}" ]]; then
    log "skipping the storage and session benchmarks"
elif ! "$WB_BIN" serve --help 2>&1 | grep -q -- '--config-dir'; then
    note "storage and session benchmarks" "the server has no --config-dir option (an older build than the one with getStorageInfo and session/*)"
else
    base=$(pick_base)
    if [[ -z "$base" ]]; then
        note "storage and session benchmarks" "under 5 GiB free in /tmp ($(free_gib /tmp) GiB) and /work ($(free_gib /work) GiB)"
    else
    ST_TMP=$(mktemp -d "$base/wb-store.XXXXXX")
    SLOG="$OUT/server-storage.log"
    : > "$SLOG"
    roots() {  # roots DIR: the server command for the workspace in DIR/{local,cloud,cfg}
        mkdir -p "$1/local" "$1/cloud" "$1/cfg"
        SRV=("$WB_BIN" --local-root "$1/local" --cloud-root "$1/cloud" --config-dir "$1/cfg")
    }
    # A session phase that fails (the error line stays in the results, and the exit status
    # stays non-zero) is run once more with a fresh server; AGAIN_DIR, when set, is a fresh
    # workspace for that second run (roots is called on it).
    session_client() {  # session_client CLIENT-ARGS... (the server command is "${SRV[@]}")
        local f0=$FAILED
        FAILED=0
        client "$@" -- "${SRV[@]}"
        if (( FAILED )); then
            if [[ -n "${AGAIN_DIR:-}" ]]; then roots "$AGAIN_DIR"; fi
            log "  once more, with a fresh server${AGAIN_DIR:+ and workspace}"
            client "$@" -- "${SRV[@]}"
            FAILED=1
        fi
        if (( f0 )); then FAILED=1; fi
        AGAIN_DIR=""
    }
    AGAIN_DIR=""
    log "storage: making 2,000 files / 1 GiB and 100,000 small files in $ST_TMP ($(free_gib "$base") GiB free)"
    t0=$(date +%s.%N)
    MIG="$ST_TMP/mig"
    INFO="$ST_TMP/info"
    mkdir -p "$MIG/local" "$INFO/cloud" "$INFO/cfg"
    "$OUT/fs_bench" gen-sizes "$MIG/local/data" "$(q 2000 100)" "$(q 1073741824 33554432)" >> "$RESULTS" 2> /dev/null
    t_mig=$(date +%s.%N)
    "$OUT/fs_bench" gen-tree "$INFO/local" "$(q 1000 20)" "$(q 100 10)"
    t1=$(date +%s.%N)
    python3 -c 'import json, sys; print(json.dumps({"test": "storage_env", "dir": sys.argv[1], "fs": sys.argv[2], "free_gib": float(sys.argv[3]), "mig_seconds": round(float(sys.argv[4]) - float(sys.argv[6]), 1), "tree_seconds": round(float(sys.argv[5]) - float(sys.argv[4]), 1), "rsync": sys.argv[7]}))' \
        "$ST_TMP" "$(stat -f -c %T "$ST_TMP")" "$(free_gib "$base")" "$t_mig" "$t1" "$t0" "$(rsync --version 2>/dev/null | head -1)" >> "$RESULTS"

    # 1: migrate (copy, local -> cloud, same file system) of 2,000 files / 1 GiB against rsync -a
    # and against cp -a + sha256sum of both sides. Before each run the destination (and the
    # server's config folder, so that the choice is "local" again) is removed and `sync` leaves
    # nothing dirty; nothing is dropped from the page cache. One unmeasured run of each first
    # (the first server start also puts the workspace template into the local root, so all
    # three copy the same files), then 5 rounds in rotating order (write-back speed varies from
    # run to run on this VM: rsync alone took 1.9 to 3.4 s in one run of 3 rounds).
    mig_run() {  # mig_run server|rsync|cp [label suffix]
        rm -rf "$MIG/cloud" "$MIG/cfg" "$MIG/rsync" "$MIG/cp"
        mkdir -p "$MIG/cloud" "$MIG/cfg"
        sync
        case $1 in
        server)
            roots "$MIG"
            client "server-migrate${2:-}" ndjson migrate --child-stderr "$SLOG" -- "${SRV[@]}" ;;
        rsync)
            log "rsync -a of the tree"
            fsb exec --label "rsync${2:-}" --runs 1 -- rsync -a "$MIG/local/" "$MIG/rsync/" ;;
        cp)
            log "cp -a && sha256sum of both sides"
            fsb exec --label "cp-sha256${2:-}" --runs 1 -- sh -c 'cp -a "$1" "$2" && (cd "$1" && find . -type f -print0 | sort -z | xargs -0 sha256sum) && (cd "$2" && find . -type f -print0 | sort -z | xargs -0 sha256sum)' sh "$MIG/local" "$MIG/cp" ;;
        esac
    }
    mig_run server -warmup
    mig_run rsync -warmup
    mig_run cp -warmup
    ORDERS=("server rsync cp" "rsync cp server" "cp server rsync" "server rsync cp" "rsync cp server")
    if [[ -n "$QUICK" ]]; then ORDERS=("server rsync cp"); fi
    for order in "${ORDERS[@]}"; do
        for what in $order; do mig_run "$what"; done
    done
    rm -rf "$MIG/cloud" "$MIG/rsync" "$MIG/cp"
    sync

    # 2: getStorageInfo on a local root of 100,000 files (1,000 folders x 100): the first call
    # of a fresh server walks the tree, then 50 more; against find | wc -l, warm caches.
    roots "$INFO"
    for (( round = 1; round <= $(q 3 1); round++ )); do
        log "find -type f | wc -l over the tree"
        fsb exec --label find-count --runs 3 --warmup 1 -- sh -c 'find "$1" -type f | wc -l' sh "$INFO/local"
        client server-storage ndjson storageinfo --info-runs 50 --child-stderr "$SLOG" -- "${SRV[@]}"
    done

    if [[ -n "$QUICK" ]]; then
        note "session benchmarks" "a quick run (WB_QUICK)"
    else
    # 3: durable one-message appends, paired with write + fsync of the same line in C: after the
    # warm-up, bench_client takes the last journal line the server wrote and follows (or, every
    # other pair, precedes) each measured append with one write + fsync of it to a file on the
    # same file system, timed apart; a new server and session each round, whose ping round trip
    # (the pipe and JSON-RPC floor under an append) is measured first.
    SES="$ST_TMP/ses"
    mkdir -p "$SES/loop"
    roots "$SES"
    for (( round = 1; round <= 3; round++ )); do
        session_client server-sessions ndjson rtt,append1 --rtt 5000 --warmup 500 --append-runs 1000 --append-warmup 50 --id-file "$SES/append-id" \
            --append-sessions-dir "$SES/local/.workspace/sessions" --append-baseline "$SES/loop/journal.jsonl" --child-stderr "$SLOG"
    done

    # 4: recovery of a 10,000-message session (appendMessages of 10 messages each, so 1,000
    # journal records): written by one server, then 5 fresh servers each time session/get +
    # session/messages {limit: 1} after initialize (spawn -> initialize reported apart).
    roots "$ST_TMP/rec"
    AGAIN_DIR="$ST_TMP/rec-again"
    session_client server-recover-setup ndjson recover-setup --recover-messages 10000 --recover-batch 10 --id-file "$ST_TMP/rec-id" --child-stderr "$SLOG"
    REC=$(dirname "${SRV[2]}")  # the workspace that holds the session
    rjournal="$REC/local/.workspace/sessions/$(cat "$ST_TMP/rec-id" 2>/dev/null || true)/journal.jsonl"
    python3 -c 'import json, os, sys; p = sys.argv[1]; ok = os.path.isfile(p); print(json.dumps({"test": "recover_env", "journal_bytes": os.path.getsize(p) if ok else None, "journal_lines": sum(1 for _ in open(p, "rb")) if ok else None, "folder_entries": sorted(os.listdir(os.path.dirname(p))) if ok else None}))' "$rjournal" >> "$RESULTS"
    for (( round = 1; round <= 5; round++ )); do
        session_client server-recover ndjson recover --id-file "$ST_TMP/rec-id" --child-stderr "$SLOG"
    done
    if [[ -f "$rjournal" ]]; then
        log "wc -l of the journal (reference)"
        fsb exec --label wc-journal --runs 5 --warmup 1 -- wc -l "$rjournal"
    fi

    # 5: host/didEnterBackground with 100 running sessions, a fresh workspace each round.
    for (( round = 1; round <= 3; round++ )); do
        roots "$SES/bg$round"
        AGAIN_DIR="$SES/bg$round-again"
        session_client server-background ndjson background --bg-sessions 100 --child-stderr "$SLOG"
    done
    fi  # WB_QUICK

    # 6: issue 17's targets on 10,000-message sessions (Benchmarks/session_lineage.py): session/fork,
    # export + import, recovery after compacting to 100 entries (a fresh server each round), and
    # the bytes on disk after a prune to 1 MiB. Runs in a quick run too (fewer rounds).
    roots "$ST_TMP/lineage"
    log "server-lineage ndjson: fork, export + import, compacted recovery, prune"
    if ! python3 "$HERE/session_lineage.py" --rounds "$(q 5 3)" --stderr "$SLOG" -- "${SRV[@]}" >> "$RESULTS"; then
        log "  session_lineage.py failed (see its error line in the results)"
        FAILED=1
    fi
    # 7: issue 25's LangGraph saver (Benchmarks/langgraph_bench.py): put + get_tuple round trips of
    # workspace_bridge.langgraph beside langgraph-checkpoint-sqlite's savers, in the same rounds.
    if python3 -c 'import langgraph.checkpoint.sqlite' 2> /dev/null; then
        log "langgraph: put + get_tuple, our saver beside langgraph-checkpoint-sqlite's"
        if ! python3 "$HERE/langgraph_bench.py" --bin "$WB_BIN" --dir "$ST_TMP/langgraph" --ops "$(q 1000 200)" \
                --rounds "$(q 3 1)" --stderr "$SLOG" >> "$RESULTS"; then
            log "  langgraph_bench.py failed (see its error line in the results)"
            FAILED=1
        fi
    else
        note "LangGraph saver benchmark" "langgraph-checkpoint-sqlite is not installed (bash scripts/setup.sh --test)"
    fi
    # 7: issue 25's search (Benchmarks/session_search.py): session/search over 1,000 sessions x 1,000
    # messages (100 x 100 in a quick run) against rg over the same text as files.
    roots "$ST_TMP/search"
    log "server-search ndjson: session/search over $(q 1000 100) sessions x $(q 1000 100) messages vs rg"
    if ! python3 "$HERE/session_search.py" --sessions "$(q 1000 100)" --messages "$(q 1000 100)" --rounds "$(q 5 3)" \
            --dir "$ST_TMP/search" --stderr "$SLOG" -- "${SRV[@]}" >> "$RESULTS"; then
        log "  session_search.py failed (see its error line in the results)"
        FAILED=1
    fi
    # 7: issue 25's listing target (Benchmarks/session_list.py): session/list of 10,000 sessions
    # (1,000 in a quick run) from the metadata index, beside the same listing from the journals.
    roots "$ST_TMP/list"
    log "server-list ndjson: session/list of $(q 10000 1000) sessions, index and journals"
    if ! python3 "$HERE/session_list.py" --sessions "$(q 10000 1000)" --rounds "$(q 5 3)" --root "$ST_TMP/list/local" \
            --stderr "$SLOG" -- "${SRV[@]}" >> "$RESULTS"; then
        log "  session_list.py failed (see its error line in the results)"
        FAILED=1
    fi
    log "removing $ST_TMP"
    cleanup_files
    fi
fi

# ---------------- MCP face ----------------
# `tools/call read_file` of a 4 KiB file and spawn -> `initialize` answered, WorkspaceBridge's
# `mcp` subcommand against a Python filesystem MCP server from PyPI, installed into a virtual
# environment in Benchmarks/out (kept between runs), both driven by mcp_bench (pre-encoded
# newline-delimited requests over pipes) on the same file in the same run.
MCP_PEER_PKG=filesystem-mcp
MCP_PEER_VERSION=${WB_MCP_PEER_VERSION:-1.0.2}
MCP_TMP=""
mcp_note() {  # mcp_note WHAT TEXT: an MCP test that did not run, for the report's MCP section
    log "skipped $1: $2"
    python3 -c 'import json, sys; print(json.dumps({"test": "mcp_skipped", "what": sys.argv[1], "reason": sys.argv[2]}))' "$1" "$2" >> "$RESULTS"
}
if [[ -n "${WB_SKIP_MCP:-}" || -n "${WB_ONLY_FILES:-}" || -n "${WB_ONLY_STORAGE:-}" || -z "${MCP_BENCH:-}" ]]; then
    log "skipping the MCP benchmarks"
elif ! "$WB_BIN" --help 2>&1 | grep "^ *mcp " > /dev/null; then
    mcp_note "MCP benchmarks" "the server has no \`mcp\` subcommand (a build older than the MCP face)"
else
    MCP_VENV="$OUT/mcp-peer"
    MLOG="$OUT/server-mcp.log"
    PLOG="$OUT/peer-mcp.log"
    : > "$MLOG"
    : > "$PLOG"
    peer_ok=1
    if ! "$MCP_VENV/bin/python" -m pip show "$MCP_PEER_PKG" 2> /dev/null | grep -qx "Version: $MCP_PEER_VERSION"; then
        log "MCP: installing $MCP_PEER_PKG==$MCP_PEER_VERSION from PyPI into $MCP_VENV"
        rm -rf "$MCP_VENV"
        if ! { python3 -m venv "$MCP_VENV" && "$MCP_VENV/bin/python" -m pip install -q --disable-pip-version-check \
                "$MCP_PEER_PKG==$MCP_PEER_VERSION"; } > "$OUT/mcp-peer-install.log" 2>&1; then
            peer_ok=0
            mcp_note "MCP peer" "$MCP_PEER_PKG==$MCP_PEER_VERSION could not be installed from PyPI (Benchmarks/out/mcp-peer-install.log: $(tail -n 1 "$OUT/mcp-peer-install.log" | cut -c1-200)); no peer figures, no ratios"
        fi
    fi
    MCP_TMP=$(mktemp -d "${TMPDIR:-/tmp}/wb-mcp.XXXXXX")
    MWS="$MCP_TMP/ws"
    mkdir -p "$MWS/bench"
    # 4,096 bytes of ASCII text, starting with a marker the first answer must contain
    python3 -c 'import random, sys
r = random.Random(7); words = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu".split()
s = "MCPBENCH4K "
while len(s) < 4096: s += " ".join(r.choice(words) for _ in range(10)) + "\n"
open(sys.argv[1], "w").write(s[:4096])' "$MWS/bench/file4k.txt"
    MSRV=("$WB_BIN" mcp --local-root "$MWS" --config-dir "$MCP_TMP/cfg")
    OMSRV=("$OLD_BIN" mcp --local-root "$MWS" --config-dir "$MCP_TMP/old-cfg")
    OLD_MCP=""
    if [[ -n "$OLD_BIN" ]]; then
        if "$OLD_BIN" --help 2>&1 | grep "^ *mcp " > /dev/null; then OLD_MCP=1
        else mcp_note "old binary's MCP figures" "the old binary has no \`mcp\` subcommand"; fi
    fi
    MPARAMS='{"name":"read_file","arguments":{"path":"bench/file4k.txt"}}'
    # The same file through the JSON-RPC face (`loadFile`, ndjson framing): what MCP costs over the core (issue 23).
    JSRV=("$WB_BIN" serve --local-root "$MWS" --config-dir "$MCP_TMP/cfg-jsonrpc")
    LPARAMS='{"path":"bench/file4k.txt"}'
    PSRV=("$MCP_VENV/bin/filesystem-mcp" "$MWS")
    PPARAMS="{\"name\":\"read_file\",\"arguments\":{\"path\":\"$MWS/bench/file4k.txt\"}}"
    peer_python=""; peer_sdk=""
    if (( peer_ok )); then
        peer_python=$("$MCP_VENV/bin/python" -c 'import platform; print(platform.python_version())')
        peer_sdk=$("$MCP_VENV/bin/python" -m pip show mcp 2> /dev/null | awk '/^Version:/ {print $2}')
    fi
    python3 -c 'import json, sys; a = sys.argv; print(json.dumps({"test": "mcp_env", "peer_package": a[1], "peer_version": a[2] if a[3] == "1" else None, "peer_python": a[4], "peer_sdk": a[5], "peer_command": "filesystem-mcp WORKSPACE", "peer_params": a[6], "server_params": a[7], "file": "bench/file4k.txt", "file_bytes": 4096, "dir": a[8], "peer_why": "the Python port of the reference filesystem MCP server (read_file, write_file, list_directory inside allowed folders) on the official `mcp` SDK, clean on stdio", "peers_considered": "`fs-mcp` 1.47.3 (more releases, but its stdio mode prints a banner on stdout before the protocol, and it pulls in Streamlit, DuckDB and google-genai: a 700 MB environment), `mcp-filesystem-encoding` 0.2.4, `better-mcps-filesystem` 0.3.0, `mcpfiles` 0.0.3 (few releases, not more established)."}))' \
        "$MCP_PEER_PKG" "$MCP_PEER_VERSION" "$peer_ok" "$peer_python" "$peer_sdk" \
        '{"name":"read_file","arguments":{"path":"/abs/path/of/file4k.txt"}}' "$MPARAMS" "$MCP_TMP" >> "$RESULTS"
    mcpb() {  # mcpb ARGS...: mcp_bench, figures appended to the results
        local rc=0
        "$OUT/mcp_bench" "$@" >> "$RESULTS" || rc=$?
        if (( rc != 0 )); then log "  mcp_bench $1 ($3) exited $rc"; FAILED=1; fi
    }
    # tools/call read_file in three placements, like the ping round trips: default (the
    # scheduler decides), both on CPU 0, client on CPU 0 and server on CPU 1. In each, the floor
    # (echo_peer answering every request line with itself: the same request bytes through the
    # same pipes, no server), WorkspaceBridge and the peer take turns.
    MCP_ROUNDS=${WB_MCP_ROUNDS:-3}
    mcp_placement() {  # mcp_placement SUFFIX CLIENT-CPU SERVER-CPU (CPUs empty: default placement)
        local sfx=$1 pre=() spre=()
        if [[ -n "$2" ]]; then pre=(taskset -c "$2"); spre=(taskset -c "$3"); fi
        MCP_BENCH_CMD=("${pre[@]}" "$OUT/mcp_bench")
        mcpb_pinned call --label "floor$sfx" --calls 1000 --warmup 100 --params "$MPARAMS" -- "${spre[@]}" "$OUT/echo_peer"
        mcpb_pinned call --label "server$sfx" --calls 1000 --warmup 100 --expect MCPBENCH4K --params "$MPARAMS" --child-stderr "$MLOG" -- "${spre[@]}" "${MSRV[@]}"
        mcpb_pinned call --jsonrpc --method loadFile --label "jsonrpc$sfx" --calls 1000 --warmup 100 --expect MCPBENCH4K --params "$LPARAMS" --child-stderr "$MLOG" -- "${spre[@]}" "${JSRV[@]}"
        if [[ -z "$sfx" ]]; then  # MCP 2026-07-28: the same calls, each carrying the per-request _meta (issue 16)
            mcpb_pinned call --modern --label "modern$sfx" --calls 1000 --warmup 100 --expect MCPBENCH4K --params "$MPARAMS" --child-stderr "$MLOG" -- "${spre[@]}" "${MSRV[@]}"
        fi
        if [[ -z "$sfx" && -n "$OLD_MCP" ]]; then  # the old binary: the default placement, as judged
            local f0=$FAILED
            mcpb_pinned call --label "old$sfx" --calls 1000 --warmup 100 --expect MCPBENCH4K --params "$MPARAMS" --child-stderr "$OUT/old-mcp.log" -- "${spre[@]}" "${OMSRV[@]}"
            FAILED=$f0
        fi
        if (( peer_ok )); then
            mcpb_pinned call --label "peer$sfx" --calls 1000 --warmup 100 --expect MCPBENCH4K --params "$PPARAMS" --child-stderr "$PLOG" -- "${spre[@]}" "${PSRV[@]}"
        fi
    }
    mcpb_pinned() {  # like mcpb, through MCP_BENCH_CMD (mcp_bench, maybe under taskset)
        local rc=0
        "${MCP_BENCH_CMD[@]}" "$@" >> "$RESULTS" || rc=$?
        if (( rc != 0 )); then log "  mcp_bench $1 ($3) exited $rc"; FAILED=1; fi
    }
    for (( round = 1; round <= MCP_ROUNDS; round++ )); do
        log "MCP: tools/call read_file 4 KiB, round $round, default placement (floor, server, server in the 2026 era, peer)"
        mcp_placement "" "" ""
    done
    if command -v taskset > /dev/null && (( $(nproc) >= 2 )); then
        for (( round = 1; round <= (MCP_ROUNDS + 1) / 2; round++ )); do
            log "MCP: tools/call read_file 4 KiB, round $round, both on CPU 0, then client CPU 0 / server CPU 1"
            mcp_placement -samecpu 0 0
            mcp_placement -crosscpu 0 1
        done
    else
        mcp_note "pinned MCP placements" "taskset is missing or the machine has one CPU"
    fi
    # A read with an unchanged etag (issue 27): `resources/read` carrying the etag the client holds
    # answers "unchanged" after one lstat, against a `ping` round trip on the same server, rounds
    # interleaved so both see the same load.
    MURI="file://$MWS/bench/file4k.txt"
    if METAG=$(python3 "$HERE/mcp_etag.py" "$MURI" -- "${MSRV[@]}" 2>> "$MLOG"); then
        MEPARAMS="{\"uri\":\"$MURI\",\"_meta\":{\"workspace-bridge/ifNoneMatch\":\"$METAG\"}}"
        for (( round = 1; round <= MCP_ROUNDS; round++ )); do
            log "MCP: resources/read with an unchanged etag vs ping, round $round"
            mcpb call --method ping --label etag-ping --calls 2000 --warmup 200 --params '{}' --child-stderr "$MLOG" -- "${MSRV[@]}"
            mcpb call --method resources/read --label etag-read --calls 2000 --warmup 200 --expect 'workspace-bridge/unchanged' \
                --params "$MEPARAMS" --child-stderr "$MLOG" -- "${MSRV[@]}"
        done
    else
        log "  mcp_etag.py could not read the file's etag ($MLOG)"; FAILED=1
        mcp_note "unchanged-etag read" "the etag of bench/file4k.txt could not be read (see the MCP log)"
    fi
    log "MCP: spawn -> initialize answered, 20 runs each"
    mcpb spawn --label server --runs 20 --warmup 2 --child-stderr "$MLOG" -- "${MSRV[@]}"
    log "MCP: spawn -> server/discover -> first tools/call result (2026-07-28 era), 20 runs"
    mcpb spawn --modern --label modern --runs 20 --warmup 2 --params "$MPARAMS" --child-stderr "$MLOG" -- "${MSRV[@]}"
    if (( peer_ok )); then
        mcpb spawn --label peer --runs 20 --warmup 2 --child-stderr "$PLOG" -- "${PSRV[@]}"
    fi
    rm -rf "$MCP_TMP"
    MCP_TMP=""
fi

# ---------------- ACP face (issue 24) ----------------
# Benchmarks/acp_bench.py: `workspace-bridge acp` in front of a raw NDJSON agent, beside the same
# agent spoken to directly in the same run (latency, rate), then load, list and RSS; every size a
# tenth in a quick run.
if [[ -n "${WB_SKIP_ACP:-}" || -n "${WB_ONLY_FILES:-}" || -n "${WB_ONLY_STORAGE:-}" || -n "${WB_ONLY_MCP:-}" ]]; then
    log "skipping the ACP benchmarks"
elif ! "$WB_BIN" --help 2>&1 | grep "^ *acp " > /dev/null; then
    log "the server has no \`acp\` subcommand: no ACP figures"
else
    log "server-acp: latency and rate (beside a direct connection), load replay, list, RSS"
    if ! python3 "$HERE/acp_bench.py" "$WB_BIN" --json ${QUICK:+--quick} >> "$RESULTS" 2> "$OUT/acp-bench.log"; then
        log "  acp_bench.py failed (Benchmarks/out/acp-bench.log)"
        python3 -c 'import json, sys; print(json.dumps({"target": "server-acp", "error": sys.argv[1]}))' \
            "acp_bench.py failed: $(tail -n 1 "$OUT/acp-bench.log" | cut -c1-200)" >> "$RESULTS"
        FAILED=1
    fi
fi

if [[ -n "$CODEC_BIN" ]]; then
    log "codec_bench"
    "$CODEC_BIN" >> "$RESULTS" || { log "codec_bench failed"; FAILED=1; }
fi

README_OUT="$HERE/README.md"
if [[ -n "$QUICK" ]]; then README_OUT="$OUT/README.quick.md"; fi
log "writing $README_OUT"
export WB_BIN WB_LOAD_AFTER WB_BUSY_AFTER WB_RUN_SECONDS
WB_RUN_SECONDS=$(( $(date +%s) - START ))
WB_LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)
WB_BUSY_AFTER=$(busy_now)
stop_sampler
# The plots need matplotlib: a virtual environment in Benchmarks/out (kept between runs), filled
# from PyPI on first use. Without it the README is still written, without plots.
PLOT_VENV="$OUT/plot-venv"
if [[ -n "$QUICK" ]]; then
    log "WB_QUICK: no plots"
elif ! "$PLOT_VENV/bin/python" -c 'import matplotlib' 2> /dev/null; then
    log "installing matplotlib from PyPI into $PLOT_VENV"
    rm -rf "$PLOT_VENV"
    { python3 -m venv "$PLOT_VENV" && "$PLOT_VENV/bin/python" -m pip install -q --disable-pip-version-check matplotlib; } \
        > "$OUT/plot-venv-install.log" 2>&1 || log "matplotlib could not be installed (Benchmarks/out/plot-venv-install.log): no plots"
fi
if [[ -z "$QUICK" ]] && "$PLOT_VENV/bin/python" -c 'import matplotlib' 2> /dev/null; then
    log "drawing the plots"
    "$PLOT_VENV/bin/python" "$HERE/report_plots.py" "$RESULTS" "$HERE" || log "report_plots.py failed: no new plots"
fi
python3 "$HERE/report.py" "$RESULTS" "$README_OUT"
log "done in $(( $(date +%s) - START )) s"
exit $FAILED
