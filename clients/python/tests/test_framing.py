"""The framing encoder and decoder (no server needed)."""
from __future__ import annotations

import json

import pytest

from workspace_bridge.framing import Decoder, FramingError, encode, parse_body


def test_lsp_encoding_is_a_content_length_header_then_the_utf8_body():
    frame = encode({"jsonrpc": "2.0", "method": "x", "params": {"text": "é\n"}}, "lsp")

    head, _, body = frame.partition(b"\r\n\r\n")
    assert head == b"Content-Length: %d" % len(body)
    assert json.loads(body) == {"jsonrpc": "2.0", "method": "x", "params": {"text": "é\n"}}
    assert "é".encode() in body, "non-ASCII text is sent as UTF-8, not escaped"


def test_ndjson_encoding_is_one_line_even_when_strings_hold_newlines():
    frame = encode({"a": "line1\nline2"}, "ndjson")

    assert frame.endswith(b"\n") and frame.count(b"\n") == 1
    assert json.loads(frame) == {"a": "line1\nline2"}


def test_lsp_decoder_reassembles_frames_fed_one_byte_at_a_time():
    stream = encode({"id": 1, "result": "é" * 50}, "lsp") + encode({"id": 2, "result": None}, "lsp")
    decoder = Decoder("lsp")

    bodies = [b for i in range(len(stream)) for b in decoder.feed(stream[i:i + 1])]

    assert [parse_body(b)["id"] for b in bodies] == [1, 2]
    assert decoder.pending == 0


def test_lsp_decoder_accepts_any_header_case_extra_headers_and_bare_newlines():
    body = b'{"id":7}'
    data = (b"content-type: application/vscode-jsonrpc; charset=utf-8\r\nCONTENT-LENGTH: 8\r\n\r\n" + body
            + b"Content-Length: 8\n\n" + body)

    assert Decoder("lsp").feed(data) == [body, body]


def test_lsp_decoder_returns_several_frames_from_one_chunk_and_keeps_a_partial_one():
    one = encode({"id": 1}, "lsp")
    decoder = Decoder("lsp")

    assert decoder.feed(one + one + one[:5]) == [b'{"id":1}', b'{"id":1}']
    assert decoder.pending == 5
    assert decoder.feed(one[5:]) == [b'{"id":1}']


@pytest.mark.parametrize("bad", [b"Content-Length: abc\r\n\r\n", b"Content-Type: x\r\n\r\n{}",
                                 b"no colon here\r\n\r\n"])
def test_lsp_decoder_refuses_a_header_block_without_a_usable_content_length(bad):
    with pytest.raises(FramingError):
        Decoder("lsp").feed(bad)


def test_lsp_decoder_refuses_a_header_block_that_never_ends():
    decoder = Decoder("lsp")
    with pytest.raises(FramingError, match="header block"):
        decoder.feed(b"X-Filler: " + b"a" * 9000)


def test_ndjson_decoder_splits_lines_tolerating_crlf_and_blank_lines():
    decoder = Decoder("ndjson")

    assert decoder.feed(b'{"id":1}\r\n\n{"id"') == [b'{"id":1}']
    assert decoder.feed(b':2}\n') == [b'{"id":2}']


def test_a_body_that_is_not_json_is_a_framing_error():
    with pytest.raises(FramingError):
        parse_body(b"{not json")
    with pytest.raises(FramingError):
        parse_body(b'"\xff"')
