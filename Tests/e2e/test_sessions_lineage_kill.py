"""Kill loop for issue 17's rewrites (docs/protocol.md, "Agent sessions"): SIGKILLs at random
moments while a client pipelines appends, compactions, prunes (with a retention policy that drops
compacted originals and folds old messages), imports and exports, each followed by a restart on
the same folders and a check of what was recovered:

- nothing acknowledged is lost: every acknowledged message is shown (or among the originals with
  includeCompacted), unless a compaction whose originals the retention policy dropped covers it
  (the pruning the policy asked for); every acknowledged compaction is listed; every acknowledged
  import is a session with the whole source history;
- no half states: every listed session opens and reads; every imported copy holds the whole
  source history or does not exist; messages appear once, in the order they were sent; the
  export file is whole (its checksum checks) or absent.

WB_LINEAGE_KILLS (default 60) and WB_LINEAGE_KILL_SEED change the number of kills and the moments;
the loop also stops after WB_LINEAGE_KILL_SECONDS (default 150).
"""
from __future__ import annotations

import hashlib
import json
import os
import random
import time
from dataclasses import dataclass, field

from bridge import dumps, ndjson_frame, request
from sessions_helpers import Place, pipeline, results

KILLS = int(os.environ.get("WB_LINEAGE_KILLS", "60"))
SEED = int(os.environ.get("WB_LINEAGE_KILL_SEED", "20261125"))
SECONDS = float(os.environ.get("WB_LINEAGE_KILL_SECONDS", "150"))
MAX_DELAY_S = 0.03  # skewed towards 0 (the square of a uniform draw): most kills land mid-script
ROTATE_EVERY = 8
SOURCE_MESSAGES = 40


@dataclass
class Work:
    """One working session: every message id sent (in order) and what was acknowledged."""
    sid: str
    sent: list = field(default_factory=list)
    acked: set = field(default_factory=set)
    compactions: set = field(default_factory=set)


def batch(work: Work, n: int) -> list[dict]:
    start = len(work.sent)
    out = [{"role": "user" if i % 2 else "assistant", "content": f"w {i} " + "y" * 300, "id": f"w{i}"}
           for i in range(start, start + n)]
    work.sent += [m["id"] for m in out]
    return out


def checksum_ok(data: bytes) -> bool:
    doc = json.loads(data)
    value = doc["checksum"]["value"]
    i = data.rindex(value.encode())
    zeroed = data[:i] + b"0" * 64 + data[i + 64:]
    return hashlib.sha256(zeroed).hexdigest() == value


def verify(b, place: Place, works: list[Work], source_ids: list[str], source_id: str, acked_imports: set, where: str):
    listed = []
    cursor = None
    while True:
        page = b.result("session/list", {"limit": 1000, **({"cursor": cursor} if cursor else {})}, 30.0)
        listed += page["sessions"]
        cursor = page.get("nextCursor")
        if not cursor:
            break
    ids = {s["id"] for s in listed}
    gets = results(pipeline(b, [("session/get", {"id": s["id"]}) for s in listed], 60.0))
    views = results(pipeline(b, [("session/messages", {"id": s["id"], "limit": 10000, "includeCompacted": True})
                                 for s in listed], 60.0))
    by_id = {s["id"]: (g, v["messages"]) for s, g, v in zip(listed, gets, views)}
    # Imports: whole or absent.
    for sid, (g, msgs) in by_id.items():
        if g["title"] == "source" and sid != source_id:
            got = [m["id"] for m in msgs]
            assert got == source_ids, f"{where}: imported copy {sid} is partial: {len(got)} of {len(source_ids)}"
    missing = acked_imports - ids
    assert not missing, f"{where}: acknowledged imports lost: {missing}"
    # Working sessions: acknowledged messages and compactions are there, or pruned as the policy says.
    for w in works:
        assert w.sid in ids, f"{where}: session {w.sid} is gone"
        g, msgs = by_id[w.sid]
        comps = {c["id"]: c for c in g.get("compactions", [])}
        assert w.compactions <= set(comps), f"{where}: acknowledged compactions lost: {w.compactions - set(comps)}"
        shown = [m["id"] for m in msgs if m["id"] not in comps]
        order = {mid: i for i, mid in enumerate(w.sent)}
        assert all(mid in order for mid in shown), f"{where}: {w.sid} shows messages never sent"
        pos = [order[mid] for mid in shown]
        assert pos == sorted(set(pos)), f"{where}: {w.sid} messages out of order or twice"
        dropped = [(order[c["firstMessageId"]], order[c["throughMessageId"]]) for c in comps.values()
                   if not c["originalsKept"] and c["firstMessageId"] in order and c["throughMessageId"] in order]
        present = set(shown)
        for mid in w.acked:
            if mid in present:
                continue
            i = order[mid]
            assert any(lo <= i <= hi for lo, hi in dropped), \
                f"{where}: acknowledged message {mid} of {w.sid} is lost (not shown, not pruned by the policy)"
    # The export file is whole or absent.
    f = place.root / "Chats" / "w.json"
    if f.exists():
        assert checksum_ok(f.read_bytes()), f"{where}: the export file is torn"
    leftovers = [p.name for p in (place.root / "Chats").iterdir() if p.name.startswith(".")] if (place.root / "Chats").exists() else []
    assert all(not n.endswith(".json") for n in leftovers), leftovers


def test_sigkills_during_compaction_prune_import_and_export_lose_nothing_acknowledged(spawn, tmp_path):
    rng = random.Random(SEED)
    place = Place(tmp_path)
    b = place.start(spawn)
    src = b.result("session/create", {"title": "source"})["id"]
    b.result("session/appendMessages", {"id": src, "messages": [
        {"role": "user", "content": f"source {i}", "id": f"s{i}"} for i in range(SOURCE_MESSAGES)]})
    b.result("session/export", {"id": src, "path": "Chats/src.json"})
    source_ids = [f"s{i}" for i in range(SOURCE_MESSAGES)]
    b.result("session/setRetention", {"maxBytesPerSession": 65536, "keepCompactedOriginalsSeconds": 0})
    works: list[Work] = []
    acked_imports: set = set()
    kills = 0
    cut = 0  # kills that left at least one request unanswered
    t0 = time.monotonic()
    for cycle in range(KILLS):
        if time.monotonic() - t0 > SECONDS:
            break
        if cycle % ROTATE_EVERY == 0:
            works.append(Work(b.result("session/create", {"title": f"work {cycle}"})["id"]))
        w = works[-1]
        first = batch(w, 20)
        second = batch(w, 20)
        script = [
            ("msg", "session/appendMessages", {"id": w.sid, "messages": first}),
            ("compact", "session/compact", {"id": w.sid, "throughMessageId": first[-1]["id"], "summary": f"cycle {cycle}",
                                            "by": "kill-test"}),
            ("msg", "session/appendMessages", {"id": w.sid, "messages": second}),
            ("prune", "session/prune", {}),
            ("import", "session/import", {"path": "Chats/src.json"}),
            ("export", "session/export", {"id": w.sid, "path": "Chats/w.json", "overwrite": True}),
        ]
        rng.shuffle(script[3:])  # the session's own order stays; prune, import and export move around
        data = bytearray()
        rids = []
        for kind, method, params in script:
            rid = b.new_id()
            b.track(rid, method)
            rids.append(rid)
            data += ndjson_frame(dumps(request(method, params, rid)))
        b.write(bytes(data))
        b.settle(rng.random() ** 2 * MAX_DELAY_S)
        b.proc.kill()
        kills += 1
        b.read_to_eof(10.0)
        answers = {e.msg.get("id"): e.msg for e in b.log if isinstance(e.msg, dict) and "id" in e.msg}
        cut += any(rid not in answers for rid in rids)
        for (kind, method, params), rid in zip(script, rids):
            r = answers.get(rid)
            if r is None:
                continue
            assert "result" in r, f"cycle {cycle}: {method} failed: {r['error']}"
            if kind == "msg":
                w.acked |= {m["id"] for m in params["messages"]}
            elif kind == "compact":
                w.compactions.add(r["result"]["id"])
            elif kind == "import":
                acked_imports.add(r["result"]["session"]["id"])
        b.kill()
        b = place.start(spawn)
        verify(b, place, works, source_ids, src, acked_imports, f"after kill {kills} (cycle {cycle})")
    print(f"{kills} kills in {time.monotonic() - t0:.1f}s, {cut} of them cut requests off; "
          f"{len(acked_imports)} imports acknowledged")
    assert kills >= min(KILLS, 10), f"only {kills} kills in {SECONDS}s"
    assert cut >= kills // 3, f"only {cut} of {kills} kills cut a request off: the moments are too late"
    # The sessions go on after all of it.
    w = works[-1]
    b.result("session/appendMessages", {"id": w.sid, "messages": batch(w, 1)})
    assert b.result("session/prune", {}) is not None
