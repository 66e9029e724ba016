"""The summary table at the top of Benchmarks/README.md (called by report.py).

One row per headline claim: the figure, the baseline measured in the same run beside it (the
pipe floor, jansson, `cat`, `dd conv=fsync`, `find`, `rg`, `rsync`, C `write` + `fsync`) or the
peer (Foundation's JSON, the Python MCP filesystem server), their ratio, the target, and whether
it is met. Every figure is recomputed here from the results with the helpers the sections use, so
the summary and the sections agree. A claim whose phase did not run shows "not measured".

Issue 15's claims also get the previous release's figure (run.sh's "old" targets, measured in the
same rounds against the same baselines) in a column "before (REF)"; the targets are judged on the
new binary only. When run.sh could not have the old binary, its "old_env" line says why, and so
does the report ("old binary: not measured (why)") and every cell of that column.
"""

from report_mcp import CALL_TARGET, MODERN_OF_LEGACY, OVER_CORE, old_call_rate, over_core

FRAMINGS = ["lsp", "ndjson"]
SPAWN_MS = 10  # spawn -> initialize answered, median (issue 15)
RSS_MIB = 16   # RSS at any moment after start-up (issue 15)
PLACE = [("", "default"), ("-samecpu", "one CPU"), ("-crosscpu", "two CPUs")]
MIB = 1048576


def _get(r, k):
    return None if r is None else r.get(k)


def peak_rss_kib(find, target, fr):
    """The most RSS the process held at any moment after `initialize` was answered: bench_client's
    "peak_after_start_kib" (VmRSS sampled every 2 ms for 1.6 s, the idle figure, the figure after
    two pings, and VmHWM where it grew after initialize). Older results: the larger of the figures
    200 ms and 1.6 s after initialize."""
    idle, started = find(target, fr, "rss_idle"), find(target, fr, "rss")
    if _get(idle, "peak_after_start_kib") is not None and idle["peak_after_start_kib"] >= 0:
        return idle["peak_after_start_kib"]
    vals = [v for v in (_get(idle, "vmrss_kib"), _get(started, "vmrss_kib")) if v is not None and v >= 0]
    return max(vals) if vals else None


def _sec(x):
    return None if _get(x, "p50_ms") is None else x["p50_ms"] / 1e3


def append_figures(fmed):
    """The durable one-message append against C `write` + `fsync` of the same journal line, for
    the summary and the Sessions section alike. Paired runs ("append1_paired" rows: each measured
    append next to one C append, order alternating per pair) give both distributions from the
    same pairs and `ratio`, the median over the rounds of each round's median per-pair ratio.
    Older results (separate "append1" and fs_bench "append_fsync" blocks) give the ratio of the
    two p50 medians, with paired=False. None when neither ran."""
    pr = fmed("server-sessions", "append1_paired")
    if pr:
        return dict(paired=True, rows=pr, rounds=pr["rounds"], ratio=pr["pair_ratio_p50"],
                    server={k: pr[f"server_{k}_us"] for k in ("p50", "p90", "p99", "mean")},
                    c={k: pr[f"c_{k}_us"] for k in ("p50", "p90", "p99", "mean")},
                    server_rounds=[r["server_p50_us"] for r in pr["all"]], c_rounds=[r["c_p50_us"] for r in pr["all"]],
                    ratio_rounds=[r["pair_ratio_p50"] for r in pr["all"]], request_bytes=pr.get("request_bytes"),
                    line_bytes=pr.get("line_bytes"), errors=pr.get("errors"))
    app, wfs = fmed("server-sessions", "append1"), fmed("write-fsync", "append_fsync", framing=None)
    if not app and not wfs:
        return None
    c = None if not wfs else {k: wfs[f"{k}_ms"] * 1e3 for k in ("p50", "p90", "p99", "mean")}
    server = None if not app else {k: app[f"{k}_us"] for k in ("p50", "p90", "p99", "mean")}
    return dict(paired=False, rows=app, rounds=_get(app, "rounds"),
                ratio=None if not server or not c else server["p50"] / c["p50"], server=server, c=c,
                server_rounds=[] if not app else [r["p50_us"] for r in app["all"]],
                c_rounds=[] if not wfs else [r["p50_ms"] * 1e3 for r in wfs["all"]], ratio_rounds=[],
                request_bytes=_get(app, "request_bytes"), line_bytes=_get(wfs, "bytes"), errors=_get(app, "errors"))


class Summary:
    def __init__(self, rows, find, fmed, codec, fmt, why=None):
        self.rows, self.find, self.fmed, self.codec, self.fmt = rows, find, fmed, codec, fmt
        self.why = why or {}  # {baseline label: why it was not measured} (baselines.not_measured)
        self.out = []  # (claim, figure, baseline, ratio, target, met, before)
        # the previous release (run.sh's "old_env" line; None in results older than it)
        self.old = next((r for r in rows if r.get("test") == "old_env"), None)

    def add(self, claim, figure, baseline, ratio, target, met, before=None):
        self.out.append((claim, figure, baseline, ratio, target, met, before))

    def before(self, figure):
        """The old binary's cell: `figure()` (text, or None when its phase left no figure), or
        "not measured" when run.sh had no old binary."""
        if self.old is None:
            return None
        if not self.old.get("measured"):
            return "not measured"
        return figure() or "—"

    def old_vs(self, a, b, unit, nd=1):
        """An old figure and its ratio to the same baseline as the new one's."""
        if a is None:
            return None
        return f"{self.fmt(a, nd)} {unit}" + (f" ({a / b:.2f}x)" if b else "")

    def missing(self, base):
        """"not measured (why)" for a baseline label that did not run, else None."""
        return None if base not in self.why else f"not measured ({self.why[base]})"

    def one(self, claim, a, b, unit, target, ok, nd=1, lower_is_better=True, base=None, old=False):
        """A claim with one figure `a` against one baseline `b` (labelled `base`); ok(ratio) -> met.
        `old`: the old binary's figure (a number, or a function giving it), shown against `b` too."""
        f = self.fmt
        r = None if a is None or not b else a / b
        gone = self.missing(base) if b is None else None
        before = None
        if old is not False:
            before = self.before(lambda: self.old_vs(old() if callable(old) else old, b, unit, nd))
        self.add(claim, "—" if a is None else f"{f(a, nd)} {unit}", gone or ("—" if b is None else f"{f(b, nd)} {unit}"),
                 "not measured" if gone else ("—" if r is None else f"{r:.2f}x"), target, None if r is None else ok(r), before)

    def _worst(self, fig_target, base_target, sfx, test, key):
        """(ratio, figure, baseline) of the framing with the larger ratio, or None."""
        worst = None
        for fr in FRAMINGS:
            s_, b_ = _get(self.find(fig_target + sfx, fr, test), key), _get(self.find(base_target + sfx, fr, test), key)
            if s_ is None or not b_:
                continue
            if worst is None or s_ / b_ > worst[0]:
                worst = (s_ / b_, s_, b_)
        return worst

    def per_placement(self, claim, test, key, unit, target, ok_ratio=None, ok_value=None, fig_target="server",
                      base_target="floor", fmedian=None, old_target=None):
        """Figure and baseline in each placement (the worse framing of each), ratio per placement;
        `old_target`: the old binary's figure and ratio in each placement beside them."""
        figs, bases, ratios, met = [], [], [], []
        for sfx, pname in PLACE:
            worst = self._worst(fig_target, base_target, sfx, test, key)
            if worst is None:
                continue
            r, s_, b_ = worst
            figs.append(f"{self.fmt(s_, 1)} {unit} ({pname})")
            bases.append(f"{self.fmt(b_, 1)} {unit}")
            ratios.append(f"{r:.2f}x")
            met.append(ok_ratio(r) if ok_ratio else ok_value(s_))

        def old_figs():
            cells = []
            for sfx, pname in PLACE:
                w_ = self._worst(old_target, base_target, sfx, test, key)
                if w_ is not None:
                    cells.append(f"{self.fmt(w_[1], 1)} {unit} ({pname}, {w_[0]:.2f}x)")
            return ", ".join(cells)
        self.add(claim, ", ".join(figs) or "—", ", ".join(bases) or "—",
                 ", ".join(ratios) or "—", target, all(met) if met else None,
                 self.before(old_figs) if old_target else None)

    def codec_row(self, claim, base_impl, target):
        """JSONCodec parse+dump against `base_impl` on the three messages."""
        figs, bases, ratios = [], [], []
        for m, name in [("small", "111 B"), ("file4k", "4 KiB"), ("string1m", "1 MiB")]:
            c, b = _get(self.codec(m, "JSONCodec", "parse+dump"), "mb_per_s"), _get(self.codec(m, base_impl, "parse+dump"), "mb_per_s")
            if c is None or not b:
                continue
            figs.append(f"{self.fmt(c)}")
            bases.append(f"{self.fmt(b)}")
            ratios.append(f"{c / b:.2f}x")
        self.add(claim, (" / ".join(figs) + " MB/s") if figs else "—", (" / ".join(bases) + " MB/s") if bases else "—",
                 " / ".join(ratios) or "—", target, None)

    def build(self, mcp_rates, mcp_spawn, other_targets):
        find, fmed, fmt = self.find, self.fmed, self.fmt
        self.per_placement("`ping` round trip p50 vs the pipe floor (`echo_peer`)", "rtt", "p50_us", "µs",
                           "≤ 3x in each placement", ok_ratio=lambda r: r <= 3, old_target="old")
        self.per_placement("`ping` round trip p99 (floor's p99 beside it)", "rtt", "p99_us", "µs",
                           "< 100 µs in each placement", ok_value=lambda v: v < 100)
        def pipelined(t):  # (figure, floor) of the worse framing
            pipes = [(_get(find(t, fr, "pipe"), "req_per_s"), _get(find("floor", fr, "pipe"), "req_per_s")) for fr in FRAMINGS]
            pipes = [p for p in pipes if p[0] is not None]
            return min(pipes) if pipes else (None, None)
        s_, b_ = pipelined("server")
        self.one("pipelined throughput, 1,000 in flight (worse framing)", s_, b_, "req/s", "≥ 100,000 req/s",
                 lambda r: s_ >= 100000, nd=0, old=lambda: pipelined("old")[0])
        ceiling = _get(self.codec("string1m", "jansson", "dumpb_string_value"), "mb_per_s")
        def blob(t):
            blobs = [_get(find(t, fr, "blob", bytes=MIB), "mb_per_s") for fr in FRAMINGS]
            blobs = [b for b in blobs if b is not None]
            return min(blobs) if blobs else None
        self.one("1 MiB result end to end vs jansson's `json_dumpb` of it (worse framing)", blob("server"),
                 ceiling, "MB/s", "≥ 0.9x", lambda r: r >= 0.9, old=lambda: blob("old"))
        self.codec_row("JSON codec parse+dump vs jansson (111 B / 4 KiB / 1 MiB messages)", "jansson", "none set")
        self.codec_row("JSON codec parse+dump vs Foundation `JSONSerialization` (peer)", "Foundation", "none set")
        self.codec_row("JSON codec parse+dump vs Foundation `JSONDecoder`/`JSONEncoder` (peer)", "FoundationCodable", "none set")

        load = [(_get(fmed("server-files" + sfx, "load4k"), "p50_us"), _get(fmed("floor-files" + sfx, "echo4k"), "p50_us"), n)
                for sfx, n in PLACE]
        load = [x for x in load if x[0] is not None]
        self.add("`loadFile` 4 KiB p50 (pipe floor: 4 KiB echoed)",
                 ", ".join(f"{fmt(a, 1)} µs ({n})" for a, _, n in load) or "—",
                 ", ".join(f"{fmt(b, 1)} µs" for _, b, _ in load) or "—",
                 ", ".join(f"{a / b:.2f}x" if b else "—" for a, b, _ in load) or "—",
                 "< 40 µs in each placement", all(a < 40 for a, _, _ in load) if load else None)
        rng = _get(fmed("server-files", "range", encoding="utf8"), "mb_per_s")
        cat = fmed("cat-text", "exec", framing=None)
        catm = None if cat is None else 64 * MIB / (cat["p50_ms"] / 1e3) / 1e6
        self.one("`loadFile` 64 MiB of text in 1 MiB ranges vs `cat`", rng, catm, "MB/s", "none set", lambda r: None, base="cat-text")
        save, dd = fmed("server-files", "save4k"), fmed("dd", "exec", framing=None)
        self.one("durable 4 KiB `saveFile` vs `dd conv=fsync`, p50", None if save is None else save["p50_us"] / 1e3,
                 _get(dd, "p50_ms"), "ms", "≤ 1.3x", lambda r: r <= 1.3, nd=3, base="dd")
        lst, fnd = fmed("server-files", "list"), fmed("find", "exec", framing=None)
        self.one("recursive `listFiles` of 101,000 entries vs `find -printf`", _get(lst, "seconds"), _sec(fnd), "s",
                 "≤ 2x", lambda r: r <= 2, nd=3, base="find", old=lambda: _get(fmed("old-files", "list"), "seconds"))
        for case, tgt, rg, label in [("sensitive", "server-files", "rg", "`rg -n`"), ("insensitive", "server-files-i", "rg-i", "`rg -n -i`")]:
            otgt = "old" + tgt[len("server"):]
            self.one(f"literal `searchFiles` of 200 MB ({case}) vs {label}", _get(fmed(tgt, "search"), "seconds"),
                     _sec(fmed(rg, "exec", framing=None)), "s", "≤ 2x", lambda r: r <= 2, nd=3, base=rg,
                     old=lambda t=otgt: _get(fmed(t, "search"), "seconds"))
        self.one("`importFile` 1 GiB vs `cp && sync`", _get(fmed("server-files", "import"), "seconds"),
                 _sec(fmed("cp-sync", "exec", framing=None)), "s", "≤ 1.2x", lambda r: r <= 1.2, nd=2, base="cp-sync")
        mig, rsy, cps = fmed("server-migrate", "migrate"), fmed("rsync", "exec", framing=None), fmed("cp-sha256", "exec", framing=None)
        m = _get(mig, "seconds")
        gone = self.missing("rsync") if rsy is None else None
        self.add("`migrate` 2,000 files / 1 GiB vs `rsync -a` (and `cp -a` + `sha256sum`)",
                 "—" if m is None else f"{fmt(m, 2)} s", gone or ("—" if rsy is None else
                 f"{fmt(_sec(rsy), 2)} s" + ("" if cps is None else f" ({fmt(_sec(cps), 2)} s)")),
                 "not measured" if gone else
                 ("—" if m is None or rsy is None else f"{m / _sec(rsy):.2f}x" + ("" if cps is None else f" ({m / _sec(cps):.2f}x)")),
                 "≤ 1.0x vs `rsync`", None if m is None or rsy is None else m / _sec(rsy) <= 1.0)
        ap = append_figures(fmed)
        if ap is None or ap["paired"]:
            r = _get(ap, "ratio")
            self.add("durable one-message `session/appendMessages` vs C `write` + `fsync` of the same line, paired "
                     "(p50s; ratio: median of per-pair ratios)",
                     "—" if ap is None else f"{fmt(ap['server']['p50'], 1)} µs", "—" if ap is None else f"{fmt(ap['c']['p50'], 1)} µs",
                     "—" if r is None else f"{r:.2f}x", "≤ 1.5x", None if r is None else r <= 1.5)
        else:  # results older than the paired phase
            r = ap["ratio"]
            self.add("durable one-message `session/appendMessages` p50 vs C `write` + `fsync` (unpaired: separate blocks)",
                     "—" if ap["server"] is None else f"{fmt(ap['server']['p50'], 1)} µs",
                     "—" if ap["c"] is None else f"{fmt(ap['c']['p50'], 1)} µs",
                     "—" if r is None else f"{r:.2f}x", "≤ 1.5x", None if r is None else r <= 1.5)

        figs, bases, ratios, met = [], [], [], []
        for sfx, pname in PLACE:
            s_, p_, f_ = mcp_rates.get(("server", sfx)), mcp_rates.get(("peer", sfx)), mcp_rates.get(("floor", sfx))
            if s_ is None or not p_:
                continue
            figs.append(f"{fmt(s_, 0)}/s ({pname})")
            bases.append(f"{fmt(p_, 0)}/s" + (f" (floor {fmt(f_, 0)}/s)" if f_ else ""))
            ratios.append(f"{s_ / p_:.1f}x" + (f" (floor {s_ / f_:.2f}x)" if f_ else ""))
            if not sfx:
                met.append(s_ / p_ >= CALL_TARGET)
        o_, p0 = old_call_rate(self.rows), mcp_rates.get(("peer", ""))
        self.add("MCP `tools/call read_file` 4 KiB, round trips/s vs the Python peer (and vs the floor)",
                 ", ".join(figs) or "—", ", ".join(bases) or "—",
                 ", ".join(ratios) or "—", f"≥ {CALL_TARGET}x the peer in the default placement (the floor bounds it: see MCP face)",
                 None if not met else all(met),
                 self.before(lambda: None if o_ is None else f"{fmt(o_, 0)}/s (default" + (f", {o_ / p0:.1f}x)" if p0 else ")")))
        core = over_core(mcp_rates)
        if core:
            placed = [(sfx, pname) for sfx, pname in PLACE if sfx in core]
            self.add("MCP `tools/call read_file` 4 KiB round trip vs JSON-RPC `loadFile` of the same file (the MCP face over the core), same rounds",
                     ", ".join(f"{fmt(1e6 / core[sfx][1], 1)} µs ({pname})" for sfx, pname in placed),
                     ", ".join(f"{fmt(1e6 / core[sfx][2], 1)} µs" for sfx, _ in placed),
                     ", ".join(f"{core[sfx][0]:.2f}x" for sfx, _ in placed), f"≤ {OVER_CORE}x in the default placement",
                     None if "" not in core else core[""][0] <= OVER_CORE)
        s_, p_ = mcp_spawn.get("server"), mcp_spawn.get("peer")
        self.add("MCP spawn → `initialize` answered, median, vs the Python peer",
                 "—" if s_ is None else f"{fmt(s_, 1)} ms", "—" if p_ is None else f"{fmt(p_, 1)} ms",
                 "—" if s_ is None or p_ is None else f"{p_ / s_:.0f}x faster", "≥ 50x faster",
                 None if s_ is None or p_ is None else p_ / s_ >= 50)
        m_, s0, p0 = mcp_rates.get(("modern", "")), mcp_rates.get(("server", "")), mcp_rates.get(("peer", ""))
        if m_ is not None:
            ok = [m_ / p0 >= CALL_TARGET] if p0 else []
            ok += [m_ / s0 >= MODERN_OF_LEGACY] if s0 else []
            self.add("MCP 2026-07-28 era `tools/call read_file` 4 KiB (`_meta` on every request), round trips/s vs the peer and vs our 2025 era",
                     f"{fmt(m_, 0)}/s (default)", (f"peer {fmt(p0, 0)}/s" if p0 else "peer —") + (f", 2025 era {fmt(s0, 0)}/s" if s0 else ""),
                     ", ".join(x for x in [f"{m_ / p0:.1f}x the peer" if p0 else "", f"{m_ / s0:.0%} of the 2025 era" if s0 else ""] if x) or "—",
                     f"≥ {CALL_TARGET}x the peer and ≥ {MODERN_OF_LEGACY:.0%} of the 2025 era", all(ok) if ok else None)
        m_ = mcp_spawn.get("modern")
        if m_ is not None:
            self.add("MCP 2026-07-28 era spawn → first tool result (discover, then call), median, vs the peer's spawn → `initialize`",
                     f"{fmt(m_, 1)} ms", "—" if p_ is None else f"{fmt(p_, 1)} ms",
                     "—" if p_ is None else f"{p_ / m_:.0f}x faster", "≥ 50x faster", None if p_ is None else p_ / m_ >= 50)
        def spawn(t):  # (median, floor's) of the worse framing
            sp = [(_get(find(t, fr, "spawn"), "median_ms"), _get(find("floor", fr, "spawn"), "median_ms")) for fr in FRAMINGS]
            sp = [x for x in sp if x[0] is not None]
            return max(sp) if sp else (None, None)
        a, b = spawn("server")
        self.one("JSON-RPC spawn → `initialize` answered, median (worse framing) vs `echo_peer`", a, b, "ms",
                 f"≤ {SPAWN_MS} ms", lambda r: a <= SPAWN_MS, nd=2, old=lambda: spawn("old")[0])

        def peak(t):  # (KiB, floor's) of the worse framing
            rss = [(peak_rss_kib(find, t, fr), peak_rss_kib(find, "floor", fr)) for fr in FRAMINGS]
            rss = [x for x in rss if x[0] is not None]
            return max(rss) if rss else (None, None)
        a, b = peak("server")
        self.one("RSS at any moment after start-up: the peak from `initialize` answered through the idle period "
                 "(sampled every 2 ms, and VmHWM), worse framing, vs `echo_peer`",
                 a and a / 1024, b and b / 1024, "MiB", f"≤ {RSS_MIB} MiB", lambda r: a <= RSS_MIB * 1024, nd=2,
                 old=lambda: (lambda k: k and k / 1024)(peak("old")[0]))
        return self._lines(other_targets)

    def _lines(self, other_targets):
        out = ["## Summary", "",
               "Each figure beside its baseline measured in the same run, or beside the peer; the ratio is "
               "figure / baseline (for times lower is better, for rates higher is better). Where the "
               "placement of the two processes matters, the three placements are listed (default, both "
               "on one CPU, on two CPUs), each judged. \"none set\" marks a comparison without a stated "
               "target. Details, rounds and per-round figures are in the sections below; the machine and "
               "its load during the run are described under [Machine](#machine).", ""]
        old = self.old
        if old is not None:
            ref = old.get("ref") or "?"
            commit = (old.get("commit") or "")[:7]
            name = ref if not commit or commit.startswith(ref) or ref.startswith(commit) else f"{ref}, {commit}"
            if old.get("measured"):
                out += [f"The previous release ({'the binary given in `WB_OLD_BIN`, labelled ' if old.get('given') else ''}`{name}`"
                        + (f", version {old['version']}" if old.get("version") else "") + ") ran beside the server in "
                        "the same rounds, against the same baselines: its figures, and in brackets their ratio to the "
                        f"same baseline, are in the column \"before ({name})\". Targets are judged on the new binary.", ""]
            else:
                out += [f"old binary: not measured ({old.get('reason') or 'no reason given'}).", ""]
            head = f"| claim | figure | before ({name}) | baseline / peer | ratio | target | status |"
            out += [head, "| --- | --- | --- | --- | --- | --- | --- |"]
        else:
            out += ["| claim | figure | baseline / peer | ratio | target | status |",
                    "| --- | --- | --- | --- | --- | --- |"]
        for claim, fig, base, r, tgt, met, before in self.out:
            if tgt == "none set":
                status = "—" if fig != "—" else "not measured"
            elif isinstance(met, str):
                status = met
            else:
                status = "**met**" if met else ("not measured" if met is None else "**not met**")
            if old is not None:
                out.append(f"| {claim} | {fig} | {before or '—'} | {base} | {r} | {tgt} | {status} |")
            else:
                out.append(f"| {claim} | {fig} | {base} | {r} | {tgt} | {status} |")
        out.append("")
        if other_targets:
            met = sum(1 for t in other_targets if t[3])
            measured = sum(1 for t in other_targets if t[3] is not None)
            each = "; ".join(f"{t[0]}: {'met' if t[3] else ('not measured' if t[3] is None else '**not met**')}"
                             for t in other_targets)
            out.append(f"The other targets of the sections below: {met} of {measured} measured are met ({each}).")
            out.append("")
        return out
