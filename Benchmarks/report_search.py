"""The report's "Search over every conversation" section (issue 25): the figures of
Benchmarks/session_search.py (target server-search) beside rg's on the same text in the same run."""
from __future__ import annotations

from report_lineage import _median, target_table

CASES = [
    ("literal", "literal word, any case: `session/search {query}` vs `rg -i -n`"),
    ("literal_case", "literal word, `caseSensitive`: vs `rg -n`"),
    ("regex_slice", "regex `zanzi\\w+r` over 10 sessions (`sessionIds`) vs `rg -i -n` over their 10 files"),
]


def _rows(rows, test):
    return [r for r in rows if r.get("target") == "server-search" and r.get("test") == test and "error" not in r]


def targets(rows):
    """(name, measured text, goal text, met) for issue 25's search target; [] when not run."""
    lit = _rows(rows, "literal")
    corpus = next(iter(_rows(rows, "corpus")), None)
    if not lit or corpus is None:
        return []
    s, r = _median(lit, "search_ms"), _median(lit, "rg_ms")
    size = f"{corpus['sessions']:,} sessions × {corpus['messages']:,} messages, {corpus['text_bytes'] / 1e6:.0f} MB of text"
    if r is None:
        return [(f"`session/search` over {size}", f"{s:.0f} ms (rg not measured)", "≤ 2x rg", None)]
    ratio = s / r
    return [(f"`session/search` over {size}, against `rg -i` over the same text as files",
             f"{s:.0f} ms vs rg {r:.0f} ms: {ratio:.2f}x (median of {len(lit)})", "≤ 2x rg", ratio <= 2)]


def section(rows, w, status_text):
    tg = targets(rows)
    errors = [r for r in rows if r.get("target") == "server-search" and "error" in r]
    skipped = [r for r in rows if r.get("target") == "server-search" and r.get("test") == "search_skipped"]
    if not tg and not errors:
        return tg
    corpus = next(iter(_rows(rows, "corpus")), None)
    w("## Search over every conversation")
    w("")
    w("Issue 25's target through the real binary (`Benchmarks/session_search.py`, ndjson framing): sessions of "
      "~200-byte messages (33 words from a 5,000-word vocabulary; one message in 1,000 holds the word searched), "
      "written through `session/appendMessages` 1,000 messages a call, and the same text written as one file per "
      "session, one line per message, which `rg` searches. Both run warm (a first round not counted), on the same "
      "machine in the same run; `session/search` counts and ranks every hit and returns the best 20, `rg` prints "
      "every matching line (to /dev/null).")
    w("")
    for e in errors:
        w(f"- **Failed**: {e.get('error')}")
    for e in skipped:
        w(f"- **Not measured**: {e.get('reason')}")
    if corpus:
        w(f"- Corpus: {corpus['sessions']:,} sessions × {corpus['messages']:,} messages, {corpus['text_bytes']:,} bytes "
          f"of text, written through the protocol in {corpus['fill_ms'] / 1000:.1f} s.")
    fresh = next(iter(_rows(rows, "fresh_server")), None)
    if fresh:
        w(f"- A fresh server's first literal search (every journal loaded on the way): {fresh['search_ms']:.0f} ms.")
    w("")
    w("| search | hits | `session/search` | `rg` | ratio |")
    w("| --- | --- | --- | --- | --- |")
    for test, name in CASES:
        found = _rows(rows, test)
        if not found:
            continue
        s, r = _median(found, "search_ms"), _median(found, "rg_ms")
        w(f"| {name} | {found[0]['total_hits']:,} | {s:.1f} ms | {'—' if r is None else f'{r:.1f} ms'} | "
          f"{'—' if r is None else f'{s / r:.2f}x'} |")
    w("")
    if tg:
        target_table(tg, w, status_text)
    return tg
