"""The repeat cases of test_retry.py, one per method a client sends (docs/protocol.md, "Retries").

A `Case` prepares a server for one method and gives the request's params (`params(env)`), and
checks what a user would see after the request and its exact repeat (`check(env, first, repeat)`):
the file written once or twice, the session, the queue, the notifications sent once.
"""
from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import pytest

@dataclass
class Env:
    """One case's server (`b`, started with --local-root `local`, --cloud-root `cloud`, --config-dir
    `config` under `tmp`) and what its setup made (a session, a queue item, a request to cancel)."""
    b: Any
    tmp: Path
    local: Path
    cloud: Path
    config: Path
    spawn: Callable
    sid: str | None = None
    qid: str | None = None
    cancelled: Any = None

    def write(self, rel: str, data: bytes | str, root: Path | None = None) -> Path:
        p = (root or self.local) / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data.encode() if isinstance(data, str) else data)
        return p

    def r(self, method: str, params: Any = None) -> Any:
        return self.b.result(method, params, 20.0)

    def session(self, state: str = "idle") -> str:
        sid = self.r("session/create", {"title": "retry"})["id"]
        path = {"idle": [], "running": ["running"], "backgrounded": ["running", "backgrounded"]}[state]
        for to in path:
            self.r("session/transition", {"id": sid, "to": to})
        return sid


@dataclass
class Case:
    """params(env) -> the request's params (setup done there); check(env, first, repeat) -> the
    effect a user sees. `notification` cases send a notification twice instead."""
    params: Callable[[Env], Any]
    check: Callable[[Env, dict, dict], None] | None = None
    init: bool = True
    notification: bool = False


def noop(env, first, repeat):
    pass


def result(resp: dict) -> Any:
    assert "result" in resp, f"expected a result, got {resp}"
    return resp["result"]


# -- the cases -------------------------------------------------------------------------------

def _initialize(env):
    return {"clientInfo": {"name": "retry", "version": "1"}}


def _shutdown_check(env, first, repeat):
    assert first["result"] is None
    env.b.notify("exit")
    assert env.b.wait_exit(10) == 0


def _exit(env):
    assert env.b.result("shutdown") is None
    return None


def _cancel(env):
    rid = env.b.request("debug/sleep", {"ms": 60000})
    env.cancelled = rid
    return {"id": rid}


def _cancel_check(env, first, repeat):
    r = env.b.response(env.cancelled, 10)
    assert r["error"]["code"] == -32800, r
    assert len([m for m in env.b.settle(0.3) if isinstance(m, dict) and m.get("id") == env.cancelled]) == 0


def _progress_cancel(env):
    env.cancelled = env.b.request("debug/sleep", {"ms": 60000, "workDoneToken": "tok-retry"})
    env.b.take(lambda m: m.get("method") == "$/progress" and m["params"]["value"]["kind"] == "begin", 10, "begin")
    return {"token": "tok-retry"}


def _block_check(env, first, repeat):
    assert result(first) == result(repeat) == {"bytes": 300}


def _save(env):
    return {"path": "notes/a.txt", "data": "hello\n", "createParents": True}


def _save_check(env, first, repeat):
    assert (env.local / "notes/a.txt").read_bytes() == b"hello\n"


def _append_check(env, first, repeat):
    assert (env.local / "log.txt").read_bytes() == b"start\nline\nline\n"  # appended twice, as documented
    assert repeat["result"]["size"] == first["result"]["size"] + 5


def _delete(env):
    env.write("gone.txt", "x")
    return {"path": "gone.txt"}


def _delete_check(env, first, repeat):
    assert first["result"]["deleted"] is True and not (env.local / "gone.txt").exists()


def _move(env):
    env.write("m/from.txt", "moving\n")
    return {"from": "m/from.txt", "to": "m/to.txt"}


def _move_check(env, first, repeat):
    assert (env.local / "m/to.txt").read_bytes() == b"moving\n" and not (env.local / "m/from.txt").exists()


def _copy(env):
    env.write("c/src.txt", "copied\n")
    return {"from": "c/src.txt", "to": "c/dst.txt"}


def _copy_check(env, first, repeat):
    assert (env.local / "c/dst.txt").read_bytes() == b"copied\n" and (env.local / "c/src.txt").exists()


def _watch(env):
    return {}


def _watch_check(env, first, repeat):
    env.b.settle(0.3)
    env.write("watched.txt", "w")
    note = env.b.take(lambda m: m.get("method") == "workspace/didChangeFiles", 5, "didChangeFiles")
    assert any(c["path"] == "watched.txt" for c in note["params"]["changes"]), note
    later = [m for m in env.b.settle(1.0) if isinstance(m, dict) and m.get("method") == "workspace/didChangeFiles"
             and any(c["path"] == "watched.txt" for c in m["params"]["changes"])]
    assert later == [], f"the change was sent again after a repeated watchFiles: {later}"


def _import(env):
    src = env.tmp / "host" / "in.txt"
    src.parent.mkdir(parents=True, exist_ok=True)
    src.write_bytes(b"imported\n")
    return {"source": str(src), "path": "imp.txt"}


def _export(env):
    env.write("exp.txt", "exported\n")
    (env.tmp / "host").mkdir(parents=True, exist_ok=True)
    return {"path": "exp.txt", "destination": str(env.tmp / "host" / "out.txt")}


def _choose(env):
    env.r("chooseStorage", {"location": "local"})  # decide once: the first choice of the case is a real change
    return {"location": "cloud"}


def _choose_check(env, first, repeat):
    assert first["result"]["alreadyActive"] is False and repeat["result"]["alreadyActive"] is True
    assert env.r("getStorageInfo", {})["storageType"] == "cloud"


def _migrate(env):
    env.write("Research/m.txt", "migrated\n")
    return {"to": "cloud", "mode": "move"}


def _migrate_check(env, first, repeat):
    f = first["result"]
    assert f["switched"] is True and f["alreadyActive"] is False and f["copied"] >= 1
    assert (env.cloud / "Research/m.txt").read_bytes() == b"migrated\n"
    info = env.r("getStorageInfo", {})
    assert info["storageType"] == "cloud" and info["pendingMigration"] is None


def _conflicted(env):
    env.write("x.txt", "mine\n")
    env.write("x.sync-conflict-20251122-101010-ABCDEFG.txt", "theirs\n")


def _resolve(env):
    _conflicted(env)
    return {"path": "x.txt", "keep": "current"}


def _resolve_check(env, first, repeat):
    assert (env.local / "x.txt").read_bytes() == b"mine\n"
    assert not (env.local / "x.sync-conflict-20251122-101010-ABCDEFG.txt").exists()


def _session_create_check(env, first, repeat):
    ids = [s["id"] for s in env.r("session/list", {})["sessions"]]
    assert first["result"]["id"] != repeat["result"]["id"] and set(ids) >= {first["result"]["id"], repeat["result"]["id"]}


def _messages(env):
    sid = env.session()
    env.r("session/appendMessages", {"id": sid, "messages": [{"role": "user", "content": "hi", "id": "m0"}]})
    return {"id": sid}


def _session_delete_check(env, first, repeat):
    assert env.b.error("session/get", {"id": env.sid})["data"]["code"] == "NotFound"


def _with_sid(state: str = "idle", extra: Callable[[Env, str], dict] | None = None):
    def params(env):
        env.sid = env.session(state)
        return {"id": env.sid, **(extra(env, env.sid) if extra else {})}
    return params


def _append_messages_check(env, first, repeat):
    assert first["result"]["count"] == 2 and repeat["result"]["count"] == 0
    msgs = env.r("session/messages", {"id": env.sid})["messages"]
    assert [m["id"] for m in msgs] == ["a1", "a2"]


def _usage_check(env, first, repeat):
    assert env.r("session/get", {"id": env.sid})["usage"]["turns"] == 2  # counted twice, as documented


def _transition_check(env, first, repeat):
    assert first["result"]["state"] == "running" and repeat["result"] == first["result"]
    env.b.settle(0.3)
    notes = env.b.notifications("session/didChangeState")
    assert [(n["params"]["from"], n["params"]["to"]) for n in notes if n["params"]["id"] == env.sid] == [("idle", "running")]


def _call_tool(env):
    env.sid = env.session("running")
    return {"id": env.sid, "toolCallId": "call-1", "name": "append_file", "arguments": {"path": "tool.txt", "content": "once\n"}}


def _call_tool_check(env, first, repeat):
    assert first["result"].get("isError") is not True, first
    assert (env.local / "tool.txt").read_bytes() == b"once\n"  # the tool ran once


def _with_messages(env, n=3):
    env.sid = env.session()
    env.r("session/appendMessages", {"id": env.sid, "messages": [
        {"role": "user", "content": f"message {i}", "id": f"m{i}"} for i in range(1, n + 1)]})
    return env.sid


def _fork_check(env, first, repeat):
    forks = [s for s in env.r("session/list", {})["sessions"] if s.get("parentId") == env.sid]
    assert len(forks) == 2 and first["result"]["id"] != repeat["result"]["id"], forks  # two forks, as documented


def _delete_messages_check(env, first, repeat):
    assert first["result"]["deleted"] == ["m2"] and repeat["result"]["deleted"] == [], (first, repeat)
    left = [m["id"] for m in env.r("session/messages", {"id": env.sid})["messages"]]
    assert left == ["m1", "m3"], left


def _update_check(env, first, repeat):
    assert first["result"]["metadata"] == repeat["result"]["metadata"] == {"k": 1}, (first, repeat)
    assert env.r("session/get", {"id": env.sid})["title"] == "renamed"


def _compact(env):
    _with_messages(env)
    return {"id": env.sid, "throughMessageId": "m2", "summary": "one and two", "by": "tester"}


def _compact_check(env, first, repeat):
    got = env.r("session/get", {"id": env.sid})
    assert [c["id"] for c in got["compactions"]] == [first["result"]["id"]]  # one compaction, not two
    shown = env.r("session/messages", {"id": env.sid})["messages"]
    assert [m["id"] for m in shown] == [first["result"]["id"], "m3"]


def _uncompact(env):
    _with_messages(env)
    c = env.r("session/compact", {"id": env.sid, "throughMessageId": "m2", "summary": "s", "by": "tester"})
    return {"id": env.sid, "compactionId": c["id"]}


def _uncompact_check(env, first, repeat):
    assert [m["id"] for m in env.r("session/messages", {"id": env.sid})["messages"]] == ["m1", "m2", "m3"]


def _prune(env):
    env.r("session/setRetention", {"keepEndedSessions": 1})
    env.sid = env.session("running")
    env.r("session/transition", {"id": env.sid, "to": "completed"})
    later = env.session("running")
    env.r("session/transition", {"id": later, "to": "completed"})
    return {}


def _prune_check(env, first, repeat):
    assert first["result"]["deletedSessions"] == [env.sid], first  # the older ended session, once
    assert env.b.error("session/get", {"id": env.sid})["data"]["code"] == "NotFound"


def _session_export(env_):
    env_.sid = _with_messages(env_)
    return {"id": env_.sid}


def _session_export_check(env_, first, repeat):
    # The repeat is AlreadyExists (export never replaces a file unasked) and the file is the first's.
    data = (env_.local / "Chats" / f"{env_.sid}.json").read_bytes()
    assert hashlib.sha256(data).hexdigest() == first["result"]["sha256"]
    again = env_.r("session/export", {"id": env_.sid, "overwrite": True})
    assert again["sha256"] == first["result"]["sha256"]


def _session_import(env_):
    env_.sid = _with_messages(env_)
    env_.r("session/export", {"id": env_.sid, "path": "Chats/copy.json"})
    return {"path": "Chats/copy.json"}


def _session_import_check(env_, first, repeat):
    a, b = first["result"], repeat["result"]
    assert a["replacedId"] == b["replacedId"] == env_.sid and a["session"]["id"] != b["session"]["id"]  # two copies
    for copy in (a, b):
        msgs = env_.r("session/messages", {"id": copy["session"]["id"]})["messages"]
        assert [m["id"] for m in msgs] == ["m1", "m2", "m3"]


def _approve(env):
    env.sid = env.r("session/create", {"title": "consent", "approvalPolicy": {"annotations": ["write"]}})["id"]
    env.r("session/transition", {"id": env.sid, "to": "running"})
    pending = env.r("session/callTool", {"id": env.sid, "toolCallId": "call-1", "name": "append_file",
                                         "arguments": {"path": "ok.txt", "content": "once\n"}})
    assert "pendingApproval" in pending and not (env.local / "ok.txt").exists()
    return {"id": env.sid, "toolCallId": "call-1", "decision": "allow"}


def _approve_check(env, first, repeat):
    assert first["result"]["result"]["isError"] is False, first
    assert (env.local / "ok.txt").read_bytes() == b"once\n"  # ran once
    assert "pendingApprovals" not in env.r("session/get", {"id": env.sid})


def _deferred(env):
    env.sid = env.session("running")
    env.r("host/setConditions", {"network": "wifi", "batteryLevel": 0.1, "isCharging": False})
    err = env.b.error("session/callTool", {"id": env.sid, "toolCallId": "call-d", "name": "search_files",
                                           "arguments": {"query": "x"}})
    assert err["data"]["code"] == "Deferred" and err["data"]["queued"] is True
    return {}


def _background(env):
    env.sid = env.session("running")
    return {}


def _background_check(env, first, repeat):
    assert env.sid in [s["id"] if isinstance(s, dict) else s for s in first["result"]["sessions"]]
    assert env.r("session/get", {"id": env.sid})["state"] == "backgrounded"


def _enqueue(env):
    return {"kind": "sync", "payload": {"n": 1}, "idempotencyKey": "key-1"}


def _enqueue_check(env, first, repeat):
    assert [i["id"] for i in env.r("queue/list", {})["items"]] == [first["result"]["id"]]


def _queue_item(env) -> str:
    return env.r("queue/enqueue", {"kind": "sync", "payload": {}, "idempotencyKey": "k"})["id"]


def _complete(env):
    env.qid = _queue_item(env)
    return {"id": env.qid}


def _fail(env):
    env.qid = _queue_item(env)
    return {"id": env.qid, "error": "offline", "retry": True}


def _fail_check(env, first, repeat):
    assert repeat["result"]["attempts"] == first["result"]["attempts"] + 1  # another attempt, as documented


def _settings_set_check(env, first, repeat):
    assert env.r("settings/get", {"keys": ["theme"]})["values"] == {"theme": "dark"}


def _settings_remove(env):
    env.r("settings/set", {"values": {"gone": 1}})
    return {"keys": ["gone"]}


def _log_check(env, first, repeat):
    deadline = time.monotonic() + 5
    while env.b.stderr_text().count("retry-log-line") < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert env.b.stderr_text().count("retry-log-line") == 2  # logged twice, as documented


def _file(rel: str, data: str = "content\n"):
    def params(env):
        env.write(rel, data)
        return {"path": rel}
    return params


CASES: dict[str, Case] = {
    "initialize": Case(_initialize, init=False),
    "shutdown": Case(lambda env: None, _shutdown_check),
    "ping": Case(lambda env: None),
    "initialized": Case(lambda env: {}, notification=True),
    "exit": Case(_exit, lambda env, f, r: None, notification=True),
    "$/cancelRequest": Case(_cancel, _cancel_check, notification=True),
    "$/setTrace": Case(lambda env: {"value": "messages"}, notification=True),
    "window/workDoneProgress/cancel": Case(_progress_cancel, _cancel_check, notification=True),
    "saveFile": Case(_save, _save_check),
    "loadFile": Case(_file("read.txt")),
    "appendFile": Case(lambda env: (env.write("log.txt", "start\n"), {"path": "log.txt", "data": "line\n"})[1], _append_check),
    "listFiles": Case(lambda env: (env.write("dir/a.txt", "a"), env.write("dir/b.txt", "b"), {"path": "dir"})[2]),
    "deleteFile": Case(_delete, _delete_check),
    "moveFile": Case(_move, _move_check),
    "copyFile": Case(_copy, _copy_check),
    "createFolder": Case(lambda env: {"path": "new/folder"},
                         lambda env, f, r: (env.local / "new/folder").is_dir() or pytest.fail("no folder")),
    "getFileInfo": Case(lambda env: {**_file("info.txt")(env), "hash": "sha256"}),
    "searchFiles": Case(lambda env: (env.write("s/one.txt", "needle here\n"), {"query": "needle"})[1]),
    "watchFiles": Case(_watch, _watch_check),
    "unwatchFiles": Case(lambda env: (env.r("watchFiles", {}), {})[1]),
    "getFileUri": Case(_file("uri.txt")),
    "workspace/textDocumentContent": Case(lambda env: (env.write("doc.md", "# doc\n"), {"uri": "wsb:/file/doc.md"})[1]),
    # A command repeats as its method does: wsb.appendFile appends twice, like appendFile.
    "workspace/executeCommand": Case(lambda env: (env.write("log.txt", "start\n"),
                                                  {"command": "wsb.appendFile", "arguments": [{"path": "log.txt", "data": "line\n"}]})[1],
                                     _append_check),
    "importFile": Case(_import, lambda env, f, r: (env.local / "imp.txt").read_bytes() == b"imported\n" or pytest.fail()),
    "exportFile": Case(_export, lambda env, f, r: (env.tmp / "host/out.txt").read_bytes() == b"exported\n" or pytest.fail()),
    "getStorageInfo": Case(lambda env: {}),
    "chooseStorage": Case(_choose, _choose_check),
    "migrate": Case(_migrate, _migrate_check),
    "listConflicts": Case(lambda env: (_conflicted(env), {})[1]),
    "resolveConflict": Case(_resolve, _resolve_check),
    "downloadFile": Case(_file("here.txt")),
    "session/create": Case(lambda env: {"title": "twice"}, _session_create_check),
    "session/get": Case(_with_sid()),
    "session/list": Case(lambda env: (env.session(), {})[1]),
    "session/messages": Case(_messages),
    "session/delete": Case(_with_sid(), _session_delete_check),
    "session/transition": Case(_with_sid(extra=lambda env, sid: (env.b.settle(0.2), env.b.notifications(), {"to": "running"})[2]), _transition_check),
    "session/appendMessages": Case(_with_sid(extra=lambda env, sid: {"messages": [
        {"role": "user", "content": "one", "id": "a1"}, {"role": "assistant", "content": "two", "id": "a2"}]}),
        _append_messages_check),
    "session/recordUsage": Case(_with_sid("running", lambda env, sid: {"inputTokens": 10, "outputTokens": 5}), _usage_check),
    "session/checkpoint": Case(_with_sid("running", lambda env, sid: {"pendingToolCalls": [], "partialResults": {"x": 1}})),
    "session/resume": Case(_with_sid("backgrounded"),
                           lambda env, f, r: f["result"]["session"]["state"] == "running" or pytest.fail()),
    "session/callTool": Case(_call_tool, _call_tool_check),
    "session/fork": Case(lambda env: {"id": _with_messages(env), "atMessageId": "m2"}, _fork_check),
    "session/compact": Case(_compact, _compact_check),
    "session/deleteMessages": Case(lambda env: {"id": _with_messages(env), "messageIds": ["m2"]}, _delete_messages_check),
    "session/update": Case(lambda env: {"id": _with_messages(env), "title": "renamed", "metadata": {"k": 1}}, _update_check),
    "session/stats": Case(lambda env: {"id": _with_messages(env)}),
    "session/uncompact": Case(_uncompact, _uncompact_check),
    "session/getRetention": Case(lambda env: (env.r("session/setRetention", {"maxBytesPerSession": 65536}), {})[1]),
    "session/setRetention": Case(lambda env: (env.session(), {"maxBytesPerSession": 1048576, "keepEndedSessions": 10})[1]),
    "session/prune": Case(_prune, _prune_check),
    "session/export": Case(_session_export, _session_export_check),
    "session/import": Case(_session_import, _session_import_check),
    "session/setApprovalPolicy": Case(_with_sid(extra=lambda env, sid: {"approvalPolicy": "destructive"})),
    "session/approve": Case(_approve, _approve_check),
    "session/listDeferred": Case(_deferred, lambda env, f, r: [c["toolCallId"] for c in f["result"]["calls"]] == ["call-d"]
                                 or pytest.fail(str(f))),
    "session/search": Case(lambda env: (_with_messages(env), {"query": "message 2"})[1],
                           lambda env, f, r: f["result"] == r["result"] and [h["messageId"] for h in f["result"]["hits"]] == ["m2"]
                           or pytest.fail(str(f))),
    "agent/listTools": Case(lambda env: {}),
    "host/didEnterBackground": Case(_background, _background_check),
    "host/willEnterForeground": Case(lambda env: (env.session("running"), env.r("host/didEnterBackground", {}), {})[2]),
    "host/setConditions": Case(lambda env: {"network": "wifi", "batteryLevel": 0.5}),
    "host/getConditions": Case(lambda env: {}),
    "queue/enqueue": Case(_enqueue, _enqueue_check),
    "queue/list": Case(lambda env: (_queue_item(env), {})[1]),
    "queue/complete": Case(_complete, lambda env, f, r: f["result"]["status"] == "completed" or pytest.fail()),
    "queue/fail": Case(_fail, _fail_check),
    "settings/get": Case(lambda env: (env.r("settings/set", {"values": {"k": 1}}), {})[1]),
    "settings/set": Case(lambda env: {"values": {"theme": "dark"}}, _settings_set_check),
    "settings/remove": Case(_settings_remove),
    "debug/echo": Case(lambda env: {"value": {"a": [1, None]}}),
    "debug/sleep": Case(lambda env: {"ms": 5}),
    "debug/fail": Case(lambda env: {"kind": "domain"}),
    "debug/log": Case(lambda env: {"level": "warning", "message": "retry-log-line"}, _log_check),
    "debug/blob": Case(lambda env: {"bytes": 100}),
    "debug/block": Case(lambda env: {"path": str(env.write("host/plain.bin", b"x" * 300, root=env.tmp))}, _block_check),
}
