"""Reads Benchmarks/out/results.jsonl: one JSON object per line, written by the drivers in run.sh.
Lines that are not JSON objects (a driver's stray output, a line cut off by a killed run) are
skipped. Shared by report.py and report_plots.py."""
import json


def load(path):
    rows = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("{"):
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError:
                    pass
    return rows
