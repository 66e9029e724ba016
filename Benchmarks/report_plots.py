#!/usr/bin/env python3
"""Draws the two plots beside Benchmarks/README.md from Benchmarks/out/results.jsonl.

    python report_plots.py RESULTS.jsonl OUT_DIR      (needs matplotlib; run.sh gives it a venv)

- latency-percentiles.png: p50, p90, p99 and p99.9 of the sequential round trips, one panel per
  benchmark (`ping`, `loadFile` 4 KiB, MCP `tools/call read_file`) and placement (default, both
  on one CPU, on two CPUs), the server beside its floor (and the MCP peer), log scale.
- throughput-vs-payload.png: MB/s against the size of a `debug/blob` result, end to end for the
  server and its floor (`echo_peer --blob`), and in-process for the codecs (codec_bench's blobN
  messages: JSONCodec, jansson, Foundation).

Each figure is the median over the rounds, as in the README. A plot whose figures are all
missing (a partial run) is not written, and an old file of that name is left as it was.
"""
import statistics
import sys

import matplotlib
import results_file

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

PLACEMENTS = [("", "default placement"), ("-samecpu", "both on CPU 0"), ("-crosscpu", "client CPU 0, server CPU 1")]
PCTS = [("p50_us", "p50"), ("p90_us", "p90"), ("p99_us", "p99"), ("p999_us", "p99.9")]
COLORS = {"floor": "#9e9e9e", "server": "#1f77b4", "peer": "#d62728"}


def load(path):
    return [r for r in results_file.load(path) if "error" not in r]


def median_of(rows, key, **match):
    vals = [r[key] for r in rows if all(r.get(k) == v for k, v in match.items()) and isinstance(r.get(key), (int, float))]
    return statistics.median(vals) if vals else None


def latency_plot(rows, path):
    # (row title, test, framing, [(series, target prefix)])
    benches = [("`ping`, ndjson", "rtt", "ndjson", [("floor", "floor"), ("server", "server")]),
               ("`loadFile` 4 KiB, ndjson", None, "ndjson", [("floor", "floor-files"), ("server", "server-files")]),
               ("MCP `tools/call read_file` 4 KiB", "mcp_call", None, [("floor", "floor"), ("server", "server"), ("peer", "peer")])]
    grid = []
    for title, test, framing, series in benches:
        line = []
        for sfx, pname in PLACEMENTS:
            panel = []
            for name, prefix in series:
                t = test
                if test is None:
                    t = "echo4k" if name == "floor" else "load4k"
                match = {"test": t, "target": prefix + sfx}
                if framing:
                    match["framing"] = framing
                vals = [median_of(rows, k, **match) for k, _ in PCTS]
                if any(v is not None for v in vals):
                    panel.append((name, vals))
            line.append((pname, panel))
        grid.append((title, line))
    grid = [(title, line) for title, line in grid if any(panel for _, panel in line)]  # drop what did not run
    if not grid:
        return False
    fig, axes = plt.subplots(len(grid), len(PLACEMENTS), figsize=(13, 3.4 * len(grid) + 0.6), sharey="row", squeeze=False)
    for i, (title, line) in enumerate(grid):
        for j, (pname, panel) in enumerate(line):
            ax = axes[i][j]
            width = 0.8 / max(1, len(panel))
            for k, (name, vals) in enumerate(panel):
                xs = [x + (k - (len(panel) - 1) / 2) * width for x in range(len(PCTS))]
                ys = [v if v is not None else 0 for v in vals]
                ax.bar(xs, ys, width, label=name, color=COLORS[name])
                for x, v in zip(xs, vals):
                    if v is not None:
                        ax.text(x, v, f"{v:.0f}" if v >= 10 else f"{v:.1f}", ha="center", va="bottom", fontsize=6)
            ax.set_xticks(range(len(PCTS)))
            ax.set_xticklabels([p for _, p in PCTS])
            ax.set_yscale("log")
            ax.grid(axis="y", which="both", alpha=0.3)
            ax.set_title(f"{title.replace('`', '')}\n{pname}", fontsize=9)
            if j == 0:
                ax.set_ylabel("round trip, µs (log)")
            if not panel:
                ax.text(0.5, 0.5, "not measured", transform=ax.transAxes, ha="center", color="#777")
            elif j == 0 or i == len(grid) - 1:
                ax.legend(fontsize=8, loc="upper left")
    fig.suptitle("Sequential round-trip latency percentiles: server against its floor (and the MCP peer)", fontsize=12)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def throughput_plot(rows, path):
    series = []  # (label, style, [(bytes, MB/s)])
    for target, framing, label, style in [("server", "ndjson", "server, end to end (ndjson)", dict(color=COLORS["server"], marker="o")),
                                          ("server", "lsp", "server, end to end (lsp)", dict(color="#6baed6", marker="o", ls="--")),
                                          ("floor", "ndjson", "floor: echo_peer --blob (ndjson)", dict(color=COLORS["floor"], marker="s"))]:
        sizes = sorted({r["bytes"] for r in rows if r.get("test") == "blob" and r.get("target") == target and r.get("framing") == framing})
        pts = [(n, median_of(rows, "mb_per_s", test="blob", target=target, framing=framing, bytes=n)) for n in sizes]
        if len(pts) > 1:
            series.append((label, style, pts))
    for impl, label, style in [("JSONCodec", "JSONCodec.encode, in-process", dict(color="#2ca02c", marker="^")),
                               ("jansson", "jansson json_dumpb, in-process", dict(color="#ff7f0e", marker="v")),
                               ("Foundation", "Foundation JSONSerialization, in-process", dict(color=COLORS["peer"], marker="x")),
                               ("FoundationCodable", "Foundation JSONEncoder (Codable), in-process", dict(color="#9467bd", marker="+"))]:
        pts = sorted((int(r["message"][4:]), r["mb_per_s"]) for r in rows
                     if r.get("test") == "codec" and r.get("impl") == impl and r.get("op") == "dump"
                     and str(r.get("message", "")).startswith("blob") and r["message"][4:].isdigit())
        if len(pts) > 1:
            series.append((label, dict(style, ls=":"), pts))
    if not series:
        return False
    fig, ax = plt.subplots(figsize=(10, 6))
    for label, style, pts in series:
        ax.plot([p[0] for p in pts], [p[1] for p in pts], label=label, **style)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ticks = sorted({p[0] for _, _, pts in series for p in pts})
    ax.set_xticks(ticks)
    ax.set_xticklabels([f"{t // 1048576} MiB" if t >= 1048576 else f"{t // 1024} KiB" for t in ticks])
    ax.set_xlabel("payload: bytes of the result's string (debug/blob {bytes: N})")
    ax.set_ylabel("MB/s of message bytes (log)")
    ax.grid(which="both", alpha=0.3)
    ax.legend(fontsize=8)
    ax.set_title("Throughput against payload size: one request in flight end to end, and serialisation alone")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def main():
    rows = load(sys.argv[1])
    out = sys.argv[2]
    for name, fn in [("latency-percentiles.png", latency_plot), ("throughput-vs-payload.png", throughput_plot)]:
        wrote = fn(rows, f"{out}/{name}")
        print(f"report_plots: {name}: {'written' if wrote else 'no figures, not written'}", file=sys.stderr)


if __name__ == "__main__":
    main()
