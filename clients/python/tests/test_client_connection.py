"""The connection's own rules, against a scripted peer on a socket pair (no server needed)."""
from __future__ import annotations

import asyncio
import json
import socket

import pytest

from workspace_bridge import BridgeError, Client, ConnectionClosed, ProtocolError, encode
from workspace_bridge.framing import Decoder


class Peer:
    """The server's end: reads the client's frames and writes whatever bytes the test wants."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        self.reader, self.writer = reader, writer
        self.decoder = Decoder("lsp")
        self.inbox: list[dict] = []

    async def receive(self) -> dict:
        while not self.inbox:
            chunk = await asyncio.wait_for(self.reader.read(65536), 2)
            assert chunk, "the client closed its output"
            self.inbox += [json.loads(b) for b in self.decoder.feed(chunk)]
        return self.inbox.pop(0)

    def send(self, message) -> None:
        self.writer.write(encode(message, "lsp"))

    def send_raw(self, data: bytes) -> None:
        self.writer.write(data)


def with_peer(scenario, **client_options):
    async def main():
        a, b = socket.socketpair()
        client_reader, client_writer = await asyncio.open_connection(sock=a)
        peer = Peer(*await asyncio.open_connection(sock=b))
        client = Client(client_reader, client_writer, **client_options)
        try:
            return await scenario(client, peer)
        finally:
            peer.writer.close()
            await client.close(timeout=10)
    return asyncio.run(main())


def test_a_request_from_the_server_is_answered_method_not_found():
    async def scenario(client, peer):
        peer.send({"jsonrpc": "2.0", "id": "s1", "method": "client/doSomething", "params": {}})
        return await peer.receive()

    answer = with_peer(scenario)

    assert answer["id"] == "s1" and answer["error"]["code"] == -32601
    assert answer["error"]["data"] == {"code": "MethodNotFound", "method": "client/doSomething"}


def test_responses_are_matched_by_id_whatever_their_order_and_batches_are_unpacked():
    async def scenario(client, peer):
        first, second = client.request("a"), client.request("b")
        ids = [(await peer.receive())["id"], (await peer.receive())["id"]]
        peer.send({"jsonrpc": "2.0", "id": 999, "result": "nobody asked"})
        peer.send([{"jsonrpc": "2.0", "id": ids[1], "result": "B"},
                   {"jsonrpc": "2.0", "id": ids[0], "error": {"code": -32803, "message": "no",
                                                              "data": {"code": "NotFound", "path": "p"}}}])
        with pytest.raises(BridgeError) as failed:
            await first
        return await second, failed.value

    second, failed = with_peer(scenario)

    assert second == "B"
    assert failed.data_code == "NotFound" and failed.method == "a"


def test_bytes_that_are_not_a_frame_fail_every_pending_call_and_stream_with_protocol_error():
    async def scenario(client, peer):
        call = client.request("a")
        stream = client.notifications("x/y")
        peer.send_raw(b"Content-Length: 5\r\n\r\nnope!")
        with pytest.raises(ProtocolError):
            await call
        with pytest.raises(ProtocolError):
            await stream.next(1)
        with pytest.raises(ProtocolError):
            client.request("b")
        return client.failure

    assert isinstance(with_peer(scenario), ProtocolError)


def test_an_exception_in_the_on_message_hook_is_raised_to_the_waiters():
    class Rejected(Exception):
        pass

    def hook(message):
        if message.get("result") == "bad":
            raise Rejected(message)

    async def scenario(client, peer):
        call = client.request("a")
        await peer.receive()
        peer.send({"jsonrpc": "2.0", "id": call.id, "result": "bad"})
        with pytest.raises(Rejected):
            await call

    with_peer(scenario, on_message=hook)


def test_end_of_output_inside_a_message_is_a_protocol_error_and_a_clean_end_is_connection_closed():
    async def cut(client, peer):
        call = client.request("a")
        await peer.receive()
        peer.send_raw(b"Content-Length: 50\r\n\r\n{\"jsonrpc\"")
        peer.writer.close()
        with pytest.raises(ProtocolError, match="inside a message"):
            await call

    async def clean(client, peer):
        call = client.request("a")
        await peer.receive()
        peer.writer.close()
        with pytest.raises(ConnectionClosed):
            await call

    with_peer(cut)
    with_peer(clean)


def test_notifications_reach_every_subscriber_of_their_method_and_only_them():
    async def scenario(client, peer):
        one, two, other = client.notifications("n/a"), client.notifications("n/a"), client.notifications("n/b")
        for i in range(3):
            peer.send({"jsonrpc": "2.0", "method": "n/a", "params": {"i": i}})
        got_one = [await one.next(1) for _ in range(3)]
        got_two = [await two.next(1) for _ in range(3)]
        two.close()
        peer.send({"jsonrpc": "2.0", "method": "n/a", "params": {"i": 3}})
        await one.next(1)
        return got_one, got_two, two.drain(), other.drain()

    one, two, two_after_close, other = with_peer(scenario)

    assert one == two == [{"i": 0}, {"i": 1}, {"i": 2}]
    assert two_after_close == [] and other == []
