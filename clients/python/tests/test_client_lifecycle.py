"""Starting, attaching, initializing and ending a session with the real server."""
from __future__ import annotations

import asyncio
import os

import pytest

from workspace_bridge import BridgeError, Client, ConnectionClosed, spawn, start


def test_spawn_initializes_and_close_shuts_down_with_exit_status_zero(place):
    async def scenario():
        sent: list[dict] = []
        async with spawn(on_send=sent.append, **place.options()) as client:
            assert client.server_info["name"] == "workspace-bridge"
            assert "loadFile" in client.capabilities["methods"]
            assert client.capabilities["workspace"]["root"] == str(place.root)
        return client, [m["method"] for m in sent if "method" in m]

    client, methods = asyncio.run(scenario())

    assert methods == ["initialize", "initialized", "shutdown", "exit"]
    assert client.returncode == 0 and client.closed
    init = client.initialize_result
    assert init is not None and init["protocolVersion"]


def test_initialize_sends_this_process_id_and_the_client_info(place):
    async def scenario():
        sent: list[dict] = []
        async with spawn(on_send=sent.append, **place.options()):
            pass
        return sent[0]

    first = asyncio.run(scenario())

    assert first["method"] == "initialize"
    assert first["params"]["processId"] == os.getpid()
    assert first["params"]["clientInfo"]["name"] == "workspace-bridge-python"


def test_attach_speaks_to_a_server_started_elsewhere(place):
    async def scenario():
        proc = await asyncio.create_subprocess_exec(
            str(place.binary), "serve", "--local-root", str(place.root), "--config-dir", str(place.config),
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL)
        client = Client(proc.stdout, proc.stdin)
        result = await client.initialize(initialization_options={"ignored": True})
        pong = await client.ping()
        await client.close()
        return result, pong, await proc.wait()

    result, pong, status = asyncio.run(scenario())

    assert result["serverInfo"]["name"] == "workspace-bridge"
    assert pong == {}
    assert status == 0


def test_requests_after_shutdown_are_refused_with_shutdown_requested(place):
    async def scenario():
        client = await spawn(**place.options())
        await client.shutdown()
        with pytest.raises(BridgeError) as refused:
            await client.ping()
        await client.exit()
        await client.wait_closed()
        status = await client.process.wait()
        return refused.value, status, client

    refused, status, client = asyncio.run(scenario())

    assert refused.code == -32600 and refused.data_code == "ShutdownRequested"
    assert status == 0
    with pytest.raises(ConnectionClosed):
        client.request("ping")


def test_a_second_initialize_is_refused_as_already_initialized(place):
    async def scenario():
        async with spawn(**place.options()) as client:
            with pytest.raises(BridgeError) as again:
                await client.initialize()
            return again.value

    again = asyncio.run(scenario())

    assert again.code == -32600 and again.data_code == "AlreadyInitialized" and again.method == "initialize"


def test_without_initialize_requests_get_server_not_initialized_and_close_ends_with_eof(place):
    async def scenario():
        client = await start(initialize=False, **place.options())
        with pytest.raises(BridgeError) as early:
            await client.ping()
        status = await client.close()
        return early.value, status

    early, status = asyncio.run(scenario())

    assert early.code == -32002 and early.data_code == "ServerNotInitialized"
    assert status == 0


def test_ndjson_framing_works_like_lsp(place):
    async def scenario():
        raw: list[dict] = []
        async with spawn(framing="ndjson", on_message=raw.append, **place.options()) as client:
            saved = await client.save_file(path="n.txt", data="nd")
            loaded = await client.load_file(path="n.txt")
        return saved, loaded, raw

    saved, loaded, raw = asyncio.run(scenario())

    assert saved["size"] == 2 and loaded["data"] == "nd"
    assert len(raw) >= 3


def test_a_missing_binary_is_reported_before_anything_starts(tmp_path):
    async def scenario():
        await start(binary=tmp_path / "nope", local_root=tmp_path)

    with pytest.raises(FileNotFoundError):
        asyncio.run(scenario())
