"""The "MCP face" section of Benchmarks/README.md (called by report.py with its rows and helpers).

Rows (from run.sh): `mcp_env` (the peer: package, version, its Python and MCP SDK), `mcp_call`
and `mcp_spawn` (from mcp_bench, target "server" or "peer"), `mcp_skipped` (what did not run).
"""
import statistics

CALL_TARGET = 20    # tools/call read_file round trips per second: at least 20x the peer's
SPAWN_TARGET = 50   # spawn -> initialize answered: at least 50x faster than the peer


def _rows(rows, test, target):
    return [r for r in rows if r.get("test") == test and r.get("target") == target and "error" not in r]


def _median(found, key):
    vals = [r[key] for r in found if isinstance(r.get(key), (int, float))]
    return statistics.median(vals) if vals else None


def has_mcp(rows):
    return any(str(r.get("test", "")).startswith("mcp_") for r in rows)


def section(rows, w, fmt, status_text):
    if not has_mcp(rows):
        return
    env = next((r for r in rows if r.get("test") == "mcp_env"), None)
    notes = [r for r in rows if r.get("test") == "mcp_skipped"]
    errors = [r for r in rows if str(r.get("test", "")).startswith("mcp_") and "error" in r]
    calls = {t: _rows(rows, "mcp_call", t) for t in ("server", "peer")}
    spawns = {t: _rows(rows, "mcp_spawn", t) for t in ("server", "peer")}
    rate = {t: _median(calls[t], "rate_per_s") for t in calls}
    spawn = {t: _median(spawns[t], "median_ms") for t in spawns}
    peer = (f"`{env['peer_package']}` {env['peer_version']} (PyPI; Python {env['peer_python']}, "
            f"`mcp` SDK {env['peer_sdk']})") if env and env.get("peer_version") else None

    w("## MCP face")
    w("")
    w("`workspace-bridge mcp --local-root WS --config-dir CFG` against a Python filesystem MCP server "
      "from PyPI, both driven by the same minimal C client (`mcp_bench.c`: every request encoded "
      "before timing, newline-delimited JSON over two pipes, one request in flight) on the same "
      "4,096-byte text file in the same run, each server using its own read tool and argument "
      "names. The peer is installed by `run.sh` into a virtual environment in `Benchmarks/out/`.")
    w("")
    if peer:
        w(f"- Peer: {peer}: `{env['peer_command']}`; its read tool: `{env['peer_params']}`. "
          f"Chosen as {env.get('peer_why', 'the peer')}.")
    if env:
        w(f"- WorkspaceBridge: `{env['server_params']}`; the file: `{env['file']}` "
          f"({env['file_bytes']:,} bytes).")
    for n in notes:
        w(f"- **Not run: {n['what']}**: {n['reason']}.")
    for e in errors:
        w(f"- **Failed**: {e.get('target')} `{e.get('test')}`: {e.get('error')}; sample: `{str(e.get('sample', ''))[:300]}`")
    w("")

    targets = []
    r = None if rate["server"] is None or rate["peer"] in (None, 0) else rate["server"] / rate["peer"]
    targets.append(("`tools/call read_file` of a 4 KiB file, round trips per second (sequential), vs the peer",
                    "—" if r is None else f"{fmt(rate['server'], 0)}/s vs {fmt(rate['peer'], 0)}/s = {r:.2f}x",
                    f"≥ {CALL_TARGET}x", None if r is None else r >= CALL_TARGET))
    r = None if spawn["server"] in (None, 0) or spawn["peer"] is None else spawn["peer"] / spawn["server"]
    targets.append(("spawn → `initialize` answered, median of 20, vs the peer",
                    "—" if r is None else f"{fmt(spawn['server'], 1)} ms vs {fmt(spawn['peer'], 1)} ms = {r:.1f}x faster",
                    f"≥ {SPAWN_TARGET}x faster", None if r is None else r >= SPAWN_TARGET))
    w("### Targets")
    w("")
    w("| target | measured | goal | status |")
    w("| --- | --- | --- | --- |")
    for name, meas, goal, met in targets:
        w(f"| {name} | {meas} | {goal} | {status_text(met)} |")
    w("")

    w("### `tools/call read_file`, sequential round trips")
    w("")
    n_calls = next((x["calls"] for x in calls["server"] + calls["peer"]), None)
    n_warm = next((x["warmup"] for x in calls["server"] + calls["peer"]), None)
    w(f"After `initialize` and `notifications/initialized` (not timed), {fmt(n_warm, 0)} unmeasured "
      f"then {fmt(n_calls, 0)} measured calls per round, server and peer alternating, a fresh "
      "process each round; medians over the rounds, per-round rates in the last column. Latency "
      "is from the request's first byte written to its answer's newline read.")
    w("")
    w("| | round trips/s | p50 µs | p90 µs | p99 µs | answer bytes | rounds | round trips/s per round |")
    w("| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    for t, name in [("server", "WorkspaceBridge"), ("peer", "peer")]:
        x = calls[t]
        per_round_rates = ", ".join("{:,.0f}".format(r_["rate_per_s"]) for r_ in x) or "—"
        w(f"| {name} | {fmt(rate[t], 0)} | {fmt(_median(x, 'p50_us'), 1)} | {fmt(_median(x, 'p90_us'), 1)} | "
          f"{fmt(_median(x, 'p99_us'), 1)} | {fmt(_median(x, 'answer_bytes'), 0)} | {len(x)} | "
          f"{per_round_rates} |")
    w("")
    failures = sum(x.get("init_failures", 0) for x in calls["server"])
    if failures:
        w(f"- WorkspaceBridge's `initialize` was answered with an error {failures} time(s) before a process "
          "served the round (`init_failures`; `mcp_bench` then starts a new process): see the spawn "
          "table's error count.")
    wf = [r_ for r_ in rows if r_.get("target") == "write-fsync" and r_.get("test") == "append_fsync" and "error" not in r_]
    fs = _median(wf, "p50_ms")
    w("- Every MCP `tools/call` is journaled into the connection's session before it is answered "
      "(a `begin` and an `end` record, each fsynced: docs/protocol.md, \"Agent sessions\"), read-only "
      "tools included, so a round trip costs at least two `fsync`s of the journal"
      + (f"; on this file system one C `write` + `fsync` takes {fmt(fs, 3)} ms (p50, the Sessions "
         f"section), so two bound the rate near {fmt(1000 / (2 * fs), 0)}/s." if fs else "."))
    w("")

    w("### Spawn → `initialize` answered")
    w("")
    w("fork/exec, the MCP `initialize` written at once, until its answer has arrived; 20 measured "
      "runs after 2 unmeasured, then stdin is closed and the process waited for (not timed). "
      "WorkspaceBridge's `initialize` opens the workspace and creates the session the connection "
      "journals into (durably); the peer's starts a Python interpreter and imports the SDK.")
    w("")
    w("| | median ms | min ms | p90 ms | max ms | runs | `initialize` answered with an error |")
    w("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for t, name in [("server", "WorkspaceBridge"), ("peer", "peer")]:
        x = spawns[t]
        w(f"| {name} | {fmt(spawn[t], 2)} | {fmt(_median(x, 'min_ms'), 2)} | {fmt(_median(x, 'p90_ms'), 2)} | "
          f"{fmt(_median(x, 'max_ms'), 2)} | {sum(r_['runs'] for r_ in x) or '—'} | "
          f"{sum(r_.get('init_errors', 0) for r_ in x) if x else '—'} |")
    w("")
    errs = sum(r_.get("init_errors", 0) for r_ in spawns["server"])
    if errs:
        w(f"- {errs} of WorkspaceBridge's measured `initialize` answers were errors (they are timed like "
          "the others: the answer arrived). The server's stderr is in `Benchmarks/out/server-mcp.log`.")
        w("")
    if env and env.get("peers_considered"):
        w("Other Python filesystem MCP servers on PyPI that were considered: " + env["peers_considered"])
        w("")
