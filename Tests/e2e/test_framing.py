"""Framing: LSP Content-Length and NDJSON, auto-detection, limits and resynchronisation."""
from __future__ import annotations

import pytest

from bridge import dumps, frame, lsp_frame, ndjson_frame, notification, request


def ping(id):
    return dumps(request("ping", id=id))


def test_byte_by_byte_split_writes_are_reassembled(server):
    data = frame(dumps(request("debug/echo", {"value": "split é"}, id="s1")), server.framing) \
        + frame(ping("s2"), server.framing)
    server.track("s1", "debug/echo")
    server.track("s2", "ping")

    server.write_slowly(data)

    assert server.response("s1")["result"] == {"value": "split é"}
    assert server.response("s2")["result"] == {}


def test_several_messages_in_one_write_are_all_answered(server):
    ids = [f"m{i}" for i in range(6)]
    data = b"".join(frame(ping(i), server.framing) for i in ids)
    for i in ids:
        server.track(i, "ping")

    server.write(data)

    for i in ids:
        assert server.response(i)["result"] == {}
    server.assert_silent(0.2)


def test_16_mib_message_is_echoed_intact(server):
    chunk = "".join(chr(c) for c in range(0x20, 0x7f) if chr(c) not in '"\\')
    value = (chunk * (16 * 1024 * 1024 // len(chunk) + 1))[:16 * 1024 * 1024 - 100]

    server.request("debug/echo", {"value": value}, id="big")
    response = server.response("big", timeout=60)

    assert response["result"]["value"] == value


def test_content_length_counts_bytes_not_characters(spawn):
    b = spawn(framing="lsp", init=True)
    text = "héllo – 日本語 🎉 ∑"
    body = dumps(request("debug/echo", {"value": text}, id="u1"))
    assert len(body) > len(body.decode("utf-8"))
    b.track("u1", "debug/echo")
    b.track("u2", "ping")

    b.write(lsp_frame(body) + lsp_frame(ping("u2")))

    entry = b.response_entry("u1")
    assert entry.msg["result"]["value"] == text
    header, reply_body = entry.raw.split(b"\r\n\r\n", 1)
    assert header == b"Content-Length: %d" % len(reply_body)
    assert b.response("u2")["result"] == {}


def test_non_ascii_text_round_trips(server):
    text = "naïve café – Ελληνικά – 中文 – 🎉🚀 – \u2028\u2029 – \U0010fffd"
    assert server.result("debug/echo", {"value": text}) == {"value": text}


@pytest.mark.parametrize("name", ["content-length", "CONTENT-LENGTH", "cOnTeNt-LeNgTh"])
def test_lsp_header_names_are_case_insensitive(spawn, name):
    b = spawn(framing="lsp", init=True)
    b.track("h1", "ping")

    b.write(lsp_frame(ping("h1"), [name + ": {n}"]))

    assert b.response("h1")["result"] == {}


def test_lsp_headers_ended_by_bare_newlines_are_tolerated(spawn):
    b = spawn(framing="lsp", init=True)
    body = ping("nl")
    b.track("nl", "ping")

    b.write(b"Content-Length: %d\n\n" % len(body) + body)

    assert b.response("nl")["result"] == {}


@pytest.mark.parametrize("content_type", [
    "application/vscode-jsonrpc; charset=utf-8",
    "application/vscode-jsonrpc; charset=utf8",
    "application/json",
])
def test_content_type_naming_utf8_or_no_charset_is_accepted(spawn, content_type):
    b = spawn(framing="lsp", init=True)
    b.track("ct1", "ping")
    b.track("ct2", "ping")

    b.write(lsp_frame(ping("ct1"), ["Content-Length: {n}", "Content-Type: " + content_type])
            + lsp_frame(ping("ct2"), ["Content-Type: " + content_type, "Content-Length: {n}"]))

    assert b.response("ct1")["result"] == {}
    assert b.response("ct2")["result"] == {}


@pytest.mark.parametrize("charset", ["latin-1", "iso-8859-1", "utf-16"])
def test_other_charsets_are_refused_with_unsupported_charset_and_next_message_served(spawn, charset):
    b = spawn(framing="lsp", init=True)
    b.track("refused", "ping")
    b.track("next", "ping")

    b.write(lsp_frame(ping("refused"), ["Content-Length: {n}", f"Content-Type: application/vscode-jsonrpc; charset={charset}"])
            + lsp_frame(ping("next")))

    err = b.error_response(id=None)["error"]
    assert err["code"] == -32700 and err["data"]["code"] == "UnsupportedCharset"
    assert b.response("next")["result"] == {}
    b.assert_silent(0.2)  # the refused body was skipped, not answered


def test_unknown_headers_are_ignored(spawn):
    b = spawn(framing="lsp", init=True)
    b.track("uh", "ping")

    b.write(lsp_frame(ping("uh"), ["X-Custom: anything: at all", "Content-Length: {n}", "Accept: */*"]))

    assert b.response("uh")["result"] == {}
    b.assert_silent(0.2)


def test_oversized_message_gets_message_too_large_and_next_message_served(spawn, framing):
    limit = 4096
    b = spawn("--max-message-bytes", str(limit), framing=framing, init=True)
    # The skipped body contains text that looks like frames; only the byte count may be trusted.
    filler = ('Content-Length: 2\\r\\n\\r\\n{} {"jsonrpc":"2.0","id":"inner","method":"ping"} ' * 3000)
    big = dumps(request("debug/echo", {"value": filler}, id="too-big"))
    assert len(big) > 50 * limit
    b.track("after", "ping")

    b.write(frame(big, framing) + frame(ping("after"), framing))

    err = b.error_response(id=None, timeout=10)["error"]
    assert err["code"] == -32600
    assert err["data"]["code"] == "MessageTooLarge"
    assert err["data"]["limit"] == limit
    if framing == "lsp":
        assert err["data"]["size"] == len(big)  # known from Content-Length
    elif "size" in err["data"]:
        assert err["data"]["size"] > limit
    assert b.response("after", timeout=10)["result"] == {}
    b.assert_silent(0.3)


def test_message_under_the_limit_is_served(spawn, framing):
    b = spawn("--max-message-bytes", "4096", framing=framing, init=True)
    value = "v" * 3000
    assert b.result("debug/echo", {"value": value}) == {"value": value}


@pytest.mark.parametrize("bad_header", [
    "Content-Length: abc",
    "Content-Length: -5",
    "Content-Length: 12abc",
    "Content-Length: ",
    "Content-Type: application/vscode-jsonrpc",     # no Content-Length at all
    "X-Pad: " + "p" * 9000,                        # header block over 8 KiB
])
def test_bad_header_block_gets_invalid_header_and_reader_resyncs(spawn, bad_header):
    b = spawn(framing="lsp", init=True)
    lost = ping("lost")
    b.track("lost", "ping")
    b.track("resynced", "ping")

    b.write(bad_header.encode() + b"\r\n\r\n" + lost + lsp_frame(ping("resynced")))

    err = b.error_response(id=None)["error"]
    assert err["code"] == -32700 and err["data"]["code"] == "InvalidHeader"
    assert b.response("resynced")["result"] == {}
    b.assert_silent(0.3)  # exactly one error; the bytes before the next Content-Length were skipped


def test_ndjson_crlf_line_endings_are_tolerated(spawn):
    b = spawn(framing="ndjson", init=True)
    b.track("c1", "ping")
    b.track("c2", "debug/echo")

    b.write(ping("c1") + b"\r\n" + dumps(request("debug/echo", {"value": "x"}, id="c2")) + b"\r\n")

    assert b.response("c1")["result"] == {}
    assert b.response("c2")["result"] == {"value": "x"}
    b.assert_silent(0.2)


def test_ndjson_blank_lines_are_ignored(spawn):
    b = spawn(framing="ndjson", init=True)
    b.track("b1", "ping")
    b.track("b2", "ping")

    b.write(b"\n\n" + ping("b1") + b"\n\r\n\n\n" + ping("b2") + b"\n\n")

    assert b.response("b1")["result"] == {}
    assert b.response("b2")["result"] == {}
    b.assert_silent(0.3)


def test_ndjson_whitespace_only_lines_are_ignored(spawn):
    b = spawn(framing="ndjson", init=True)
    b.track("w1", "ping")

    b.write(b"   \n\t\n \r\n" + ping("w1") + b"\n")

    assert b.response("w1")["result"] == {}
    b.assert_silent(0.3)


@pytest.mark.parametrize("first_bytes, expected", [
    (b"", "ndjson"),
    (b" \t\r\n\n  ", "ndjson"),
])
def test_auto_detection_picks_ndjson_when_first_non_whitespace_byte_is_a_brace(spawn, first_bytes, expected):
    b = spawn(framing=expected)
    b.track(1, "initialize")

    b.write(first_bytes + ndjson_frame(dumps(request("initialize", {}, id=1))))

    assert "serverInfo" in b.response(1)["result"]


def test_auto_detection_picks_ndjson_when_first_byte_opens_a_batch(spawn):
    b = spawn(framing="ndjson")

    b.send([request("ping", id="early")])

    reply = b.recv()
    assert isinstance(reply, list) and reply[0]["error"]["code"] == -32002


def test_auto_detection_picks_lsp_for_a_header(spawn):
    b = spawn(framing="lsp")
    b.track(1, "initialize")

    b.write(lsp_frame(dumps(request("initialize", {}, id=1))))

    assert "serverInfo" in b.response(1)["result"]


@pytest.mark.parametrize("flag", ["lsp", "ndjson"])
def test_framing_flag_selects_the_framing(spawn, flag):
    b = spawn("--framing", flag, framing=flag, init=True)
    assert b.result("ping") == {}


def test_replies_use_the_clients_framing(spawn, framing):
    b = spawn(framing=framing, init=True)

    entry = b.response_entry(b.request("ping"))

    if framing == "lsp":
        assert entry.raw.startswith(b"Content-Length: ")
    else:
        assert entry.raw.startswith(b"{") and entry.raw.endswith(b"}\n")


def test_ndjson_reply_never_contains_a_raw_newline(spawn):
    b = spawn(framing="ndjson", init=True)
    text = "line 1\nline 2\r\nline 3\rend\u2028\u2029\u0085"

    entry = b.response_entry(b.request("debug/echo", {"value": text}))

    assert entry.msg["result"]["value"] == text
    assert entry.raw.count(b"\n") == 1 and entry.raw.endswith(b"\n")
    assert b"\r" not in entry.raw


def test_notification_in_lsp_frames_after_a_reply_keeps_framing(spawn):
    b = spawn(framing="lsp", init={"trace": "verbose"})

    b.request("debug/log", {"level": "error", "message": "framed-log"})

    b.take(lambda m: isinstance(m, dict) and m.get("method") == "window/logMessage"
           and "framed-log" in m["params"]["message"])


def test_many_pipelined_requests_are_all_answered(server):
    ids = [f"p{i}" for i in range(3000)]
    data = b"".join(frame(ping(i), server.framing) for i in ids)
    for i in ids:
        server.track(i, "ping")

    server.write(data)

    server.pump_until(lambda: len(server.inbox) >= len(ids), 20, f"{len(ids)} responses")
    assert sorted(e.msg["id"] for e in server.inbox) == sorted(ids)


def test_concurrent_large_responses_are_never_interleaved(server):
    sizes = [3 << 20, (2 << 20) + 1, 1 << 20, 5, 0]
    ids = [server.request("debug/blob", {"bytes": n}) for n in sizes]
    pings = [server.request("ping") for _ in range(20)]

    for i, n in zip(ids, sizes):
        assert len(server.response(i, timeout=20)["result"]["data"].encode()) == n
    for i in pings:
        assert server.response(i)["result"] == {}


def test_empty_lsp_body_is_a_parse_error_and_next_message_served(spawn):
    b = spawn(framing="lsp", init=True)
    b.track("after-empty", "ping")

    b.write(b"Content-Length: 0\r\n\r\n" + lsp_frame(ping("after-empty")))

    err = b.error_response(id=None)["error"]
    assert err["code"] == -32700
    assert b.response("after-empty")["result"] == {}


def test_initialize_reports_the_message_size_limit(spawn):
    b = spawn("--max-message-bytes", "5000", framing="ndjson")
    caps = b.initialize()["capabilities"]
    assert caps.get("maxMessageBytes", 5000) == 5000
