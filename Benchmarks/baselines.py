"""Which baselines of a run were not measured, and why (report.py, report_summary.py).

A baseline is a command `fs_bench exec` timed (`rg`, `rsync`, `dd`…), named by its label. It is
not measured when run.sh did not run it (the tool is not installed: a "skipped" line with
`baseline`) or when every run of it failed (an "exec" row with `bad_exits`): the time of a
command that failed at once says nothing, so such rows are never used for a figure or a ratio.
"""


def usable(row):
    """False for an exec row some of whose runs failed: its times are not the command's work."""
    return not (row.get("test") == "exec" and row.get("bad_exits"))


def _status(wait_status):
    if wait_status is None:
        return "a failure"
    if wait_status & 0x7F:
        return f"signal {wait_status & 0x7F}"
    return f"status {wait_status >> 8}"


def not_measured(rows):
    """{label: why} for every baseline of the results without a usable measurement."""
    why = {}
    measured = {r.get("target") for r in rows if r.get("test") == "exec" and usable(r)}
    for r in rows:
        if r.get("test") == "skipped" and r.get("baseline"):
            why.setdefault(r["baseline"], r.get("reason", "not run"))
        elif r.get("test") == "exec" and not usable(r) and r.get("target") not in measured:
            cmd = (r.get("command") or "?").split()[0]
            runs = r.get("n", 0) + r.get("warmup", 0)
            why.setdefault(r["target"], f"`{cmd}` failed ({_status(r.get('last_bad_status'))}) in "
                                        f"{r['bad_exits']} of {runs} runs; its times are not used")
    return why


def cell(why, label):
    """The text for a figure or ratio against baseline `label` that was not measured, or None."""
    reason = why.get(label)
    return None if reason is None else f"not measured ({reason})"


def section(why):
    """Markdown lines listing the baselines not measured (none when all were)."""
    if not why:
        return []
    out = ["## Baselines not measured", "",
           "No figure or ratio below is computed against these; each says \"not measured\" where it would be.", ""]
    out += [f"- `{label}`: {reason}." for label, reason in sorted(why.items())]
    return out + [""]
