"""The LangGraph checkpoint saver of the Python client (workspace_bridge.langgraph) on the real binary.

- LangGraph's own conformance suite (PyPI langgraph-checkpoint-conformance) in full: every
  capability it has (put, put_writes, get_tuple, list with filters/before/limit, delete_thread,
  copy_thread, prune, delete_for_runs) detected and passing, a fresh server per capability;
- the sync API from a thread other than the client's loop (a real graph run by graph.invoke);
- a graph that checkpoints, loses its server to kill -9 in the middle of a run, and resumes from
  the last checkpoint with a new server on the same store.
Every message the client sends or receives is held to schema/openrpc.json (the hooks of
test_python_client.py).
"""
from __future__ import annotations

import asyncio
import operator
import os
import signal
import sys
from pathlib import Path
from typing import Annotated, Any, TypedDict

import pytest

from test_python_client import CLIENT_PACKAGE, Checked  # noqa: F401  (puts the client on sys.path)

if str(CLIENT_PACKAGE) not in sys.path:
    sys.path.insert(0, str(CLIENT_PACKAGE))

from workspace_bridge import BridgeError, ConnectionClosed, spawn  # noqa: E402
from workspace_bridge.background import BackgroundLoop  # noqa: E402
from workspace_bridge.langgraph import WorkspaceBridgeSaver  # noqa: E402

from langgraph.checkpoint.conformance import checkpointer_test, validate  # noqa: E402
from langgraph.checkpoint.conformance.capabilities import ALL_CAPABILITIES  # noqa: E402
from langgraph.graph import END, START, StateGraph  # noqa: E402


class Steps(TypedDict):
    steps: Annotated[list[str], operator.add]


def chain(saver: WorkspaceBridgeSaver, nodes: dict[str, Any]):
    """START -> each node in order -> END, checkpointed by ``saver``."""
    builder = StateGraph(Steps)
    names = list(nodes)
    for name in names:
        builder.add_node(name, nodes[name])
    for a, b in zip([START, *names], [*names, END]):
        builder.add_edge(a, b)
    return builder.compile(checkpointer=saver)


def test_the_langgraph_conformance_suite_passes_in_full(binary, contract, tmp_path):
    checked = Checked(contract)
    counter = iter(range(100))
    log = open(tmp_path / "stderr.log", "ab")

    @checkpointer_test(name="WorkspaceBridgeSaver")
    async def factory():
        n = next(counter)
        client = await spawn(binary=binary, local_root=tmp_path / f"ws{n}", config_dir=tmp_path / f"config{n}",
                             on_send=checked.on_send, on_message=checked.on_message, stderr=log)
        try:
            yield WorkspaceBridgeSaver(client)
        finally:
            await client.close()

    report = asyncio.run(validate(factory))
    log.close()
    failures = {name: r.failures for name, r in report.results.items() if r.failures}
    assert failures == {}, failures
    assert {name for name, r in report.results.items() if r.detected} == {c.value for c in ALL_CAPABILITIES}
    assert report.conformance_level() == "FULL"
    assert sum(r.tests_passed for r in report.results.values()) >= 80
    methods = {m["method"] for m in checked.sent if "method" in m}
    assert {"session/fork", "session/deleteMessages", "session/delete", "session/list"} <= methods


def test_the_sync_api_runs_a_graph_from_another_thread(binary, tmp_path):
    with BackgroundLoop() as bg:
        client = bg.spawn(binary=binary, local_root=tmp_path / "ws", config_dir=tmp_path / "config")
        saver = WorkspaceBridgeSaver(client)
        graph = chain(saver, {"plan": lambda s: {"steps": ["plan"]}, "act": lambda s: {"steps": ["act"]}})
        config = {"configurable": {"thread_id": "sync-thread"}}
        assert graph.invoke({"steps": []}, config) == {"steps": ["plan", "act"]}
        history = list(saver.list(config))
        assert [t.metadata["step"] for t in history] == [2, 1, 0, -1]
        assert saver.get_tuple(config).checkpoint["id"] == history[0].checkpoint["id"]
        saver.copy_thread("sync-thread", "sync-copy")
        assert graph.get_state({"configurable": {"thread_id": "sync-copy"}}).values == {"steps": ["plan", "act"]}
        saver.delete_thread("sync-thread")
        assert saver.get_tuple(config) is None
        everywhere = list(saver.list(None))  # every thread of the store: only the copy is left
        assert [t.config["configurable"]["thread_id"] for t in everywhere] == ["sync-copy"] * 4
        assert [t.metadata["step"] for t in everywhere] == [2, 1, 0, -1]

        async def on_the_loop():  # a sync call on the loop itself would block it: refused, not hung
            with pytest.raises(RuntimeError, match="would block"):
                saver.get_tuple(config)
        bg.run(on_the_loop())

        async def sessions():
            return (await client.request("session/list", {}))["sessions"]
        assert [s["metadata"]["langgraph:thread_id"] for s in bg.run(sessions())] == ["sync-copy"]


def test_a_graph_killed_with_its_server_resumes_from_the_last_checkpoint(binary, tmp_path):
    roots = {"local_root": tmp_path / "ws", "config_dir": tmp_path / "config"}
    config = {"configurable": {"thread_id": "crash"}}
    calls: list[str] = []

    async def first_run() -> BaseException:
        client = await spawn(binary=binary, **roots)
        saver = WorkspaceBridgeSaver(client)

        async def research(s):
            calls.append("research")
            return {"steps": ["research"]}

        async def write(s):  # the server dies while this step runs: its checkpoint cannot be stored
            calls.append("write")
            os.kill(client.process.pid, signal.SIGKILL)
            await client.process.wait()
            return {"steps": ["write"]}
        graph = chain(saver, {"research": research, "write": write, "review": lambda s: {"steps": ["review"]}})
        try:
            await graph.ainvoke({"steps": []}, config, durability="sync")
        except BaseException as e:  # noqa: BLE001  (what the run raised is the point)
            error = e
        else:
            raise AssertionError("the run went on without its server")
        await client.close()
        assert client.returncode == -signal.SIGKILL
        return error

    async def second_run():
        async with spawn(binary=binary, **roots) as client:
            saver = WorkspaceBridgeSaver(client)

            async def write(s):
                calls.append("write")
                return {"steps": ["write"]}

            def review(s):
                calls.append("review")
                return {"steps": ["review"]}
            graph = chain(saver, {"research": lambda s: calls.append("research") or {"steps": ["research"]},
                                  "write": write, "review": review})
            before = await graph.aget_state(config)
            result = await graph.ainvoke(None, config, durability="sync")
            history = [t async for t in saver.alist(config)]
            return before, result, history

    error = asyncio.run(first_run())
    assert isinstance(error, ConnectionClosed) or isinstance(error.__cause__, ConnectionClosed), repr(error)
    before, result, history = asyncio.run(second_run())
    assert before.values == {"steps": ["research"]} and before.next == ("write",)
    assert result == {"steps": ["research", "write", "review"]}
    assert calls == ["research", "write", "write", "review"], "research ran once: resumed, not restarted"
    assert [t.metadata["step"] for t in history] == [3, 2, 1, 0, -1]


def test_a_long_thread_read_back_in_small_pages(binary, contract, tmp_path):
    """Past the few last messages get_tuple reads first, and over many pages (page_size 5)."""
    from langgraph.checkpoint.conformance.test_utils import generate_checkpoint

    checked = Checked(contract)

    async def scenario():
        async with spawn(binary=binary, local_root=tmp_path / "ws", config_dir=tmp_path / "config",
                         on_send=checked.on_send, on_message=checked.on_message) as client:
            saver = WorkspaceBridgeSaver(client, page_size=5)
            configs = {"": [], "child:1": []}
            for i in range(30):
                for ns in ("", "child:1") if i % 3 == 0 else ("",):
                    parent = configs[ns][-1]["configurable"] if configs[ns] else {}
                    config = {"configurable": {"thread_id": "long", "checkpoint_ns": ns, **(
                        {"checkpoint_id": parent["checkpoint_id"]} if parent else {})}}
                    cp = generate_checkpoint(channel_values={"i": i}, channel_versions={"i": i + 1})
                    stored = await saver.aput(config, cp, {"source": "loop", "step": i, "parents": {}}, {"i": i + 1})
                    await saver.aput_writes(stored, [("a", f"{ns}{i}a"), ("b", f"{ns}{i}b")], f"task{i}")
                    configs[ns].append(stored)
            old = await saver.aget_tuple(configs[""][3])
            everything = [t async for t in saver.alist({"configurable": {"thread_id": "long", "checkpoint_ns": ""}})]
            page = [t async for t in saver.alist({"configurable": {"thread_id": "long", "checkpoint_ns": ""}},
                                                 before=configs[""][20], limit=7)]
            both = [t async for t in saver.alist({"configurable": {"thread_id": "long"}}, filter={"step": 9})]
            # the same checkpoint id put again: replaced, its writes kept
            again = generate_checkpoint(checkpoint_id=configs[""][29]["configurable"]["checkpoint_id"],
                                        channel_values={"i": "again"}, channel_versions={"i": 99})
            await saver.aput({"configurable": {"thread_id": "long", "checkpoint_ns": "",
                                               "checkpoint_id": configs[""][28]["configurable"]["checkpoint_id"]}},
                             again, {"source": "update", "step": 29, "parents": {}}, {"i": 99})
            replaced = await saver.aget_tuple({"configurable": {"thread_id": "long", "checkpoint_ns": ""}})
            with pytest.raises(BridgeError) as too_large:  # metadata over 64 KiB: refused, nothing stored
                await saver.aput({"configurable": {"thread_id": "long", "checkpoint_ns": ""}}, generate_checkpoint(),
                                 {"source": "loop", "step": 30, "parents": {}, "note": "x" * 70_000}, {})
            still = await saver.aget_tuple({"configurable": {"thread_id": "long", "checkpoint_ns": ""}})
            assert too_large.value.data_code == "TooLarge" and still.checkpoint["id"] == replaced.checkpoint["id"]
            # a copy into a thread that already exists appends the source's records to it
            first = await saver.aput({"configurable": {"thread_id": "other", "checkpoint_ns": ""}},
                                     generate_checkpoint(), {"source": "input", "step": -1, "parents": {}}, {})
            await saver.acopy_thread("long", "other")
            copied = [t async for t in saver.alist({"configurable": {"thread_id": "other"}})]
            await saver.aprune(["long"])
            pruned = [t async for t in saver.alist({"configurable": {"thread_id": "long"}})]
            return configs, old, everything, page, both, replaced, first, copied, pruned

    configs, old, everything, page, both, replaced, first, copied, pruned = asyncio.run(scenario())
    ids = [c["configurable"]["checkpoint_id"] for c in configs[""]]
    assert old.checkpoint["channel_values"] == {"i": 3}
    assert old.parent_config["configurable"]["checkpoint_id"] == ids[2]
    assert [(w[0], w[1], w[2]) for w in old.pending_writes] == [("task3", "a", "3a"), ("task3", "b", "3b")]
    assert [t.checkpoint["id"] for t in everything] == ids[::-1]
    assert all(len(t.pending_writes) == 2 for t in everything)
    assert [t.checkpoint["id"] for t in page] == ids[19:12:-1]
    assert sorted(t.config["configurable"]["checkpoint_ns"] for t in both) == ["", "child:1"]
    assert replaced.checkpoint["channel_values"] == {"i": "again"} and replaced.metadata["source"] == "update"
    assert [w[2] for w in replaced.pending_writes] == ["29a", "29b"]
    assert len(copied) == 30 + 10 + 1 and copied[-1].checkpoint["id"] == first["configurable"]["checkpoint_id"]
    assert sorted((t.config["configurable"]["checkpoint_ns"], t.metadata["step"], len(t.pending_writes))
                  for t in pruned) == [("", 29, 2), ("child:1", 27, 2)]
