#!/usr/bin/env python3
"""Writes the seed corpus under Tests/Fuzz/corpus/ (the committed files are its output).

Each target's input format is documented on the target (Tests/Fuzz/Targets/*Target.swift).
Run from anywhere: python3 Tests/Fuzz/seeds.py
"""
import json
import os
import plistlib
import re
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def write(target, name, data):
    folder = os.path.join(HERE, "corpus", target)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data)


# framing: [mode/cap byte][chunk seed][stream]; mode = b % 3 (auto, lsp, ndjson), cap = [8, 64, 1024, 1 MiB][b // 3 % 4]
AUTO, LSP, NDJSON = 0, 1, 2
def mode(m, cap_index): return bytes([cap_index * 3 + m])
def lsp(body): return b"Content-Length: %d\r\n\r\n" % len(body) + body
req = b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}'
note = b'{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}'
resp = b'{"jsonrpc":"2.0","id":"s1","result":null}'
write("framing", "lsp-two-messages", mode(AUTO, 3) + b"\x05" + lsp(req) + lsp(note))
write("framing", "ndjson-lines-blank-crlf-batch", mode(AUTO, 3) + b"\x83" + req + b"\n\n  \n" + note + b"\r\n[" + resp + b"," + req + b"]\n")
write("framing", "lsp-oversized-then-valid", mode(LSP, 1) + b"\x02" + lsp(b"x" * 100) + lsp(b'{"a":1}'))
write("framing", "lsp-charset-and-bad-headers", mode(LSP, 2) + b"\x07"
      + b"Content-Length: 2\r\nContent-Type: application/vscode-jsonrpc; charset=utf-16\r\n\r\n{}"
      + b"no colon here\r\n\r\n" + b"Content-Length: 12x\r\n\r\n" + b"X-Other: 1\r\n\r\n" + lsp(resp))
write("framing", "ndjson-too-long-then-valid", mode(NDJSON, 1) + b"\x81" + b"[" + b"1," * 60 + b"1]\n" + resp + b"\n")
write("framing", "auto-whitespace-lowercase-header", mode(AUTO, 2) + b"\x10" + b" \r\n\tcontent-length:   7 \n\n[1,2,3]" + lsp(b"{}"))
write("framing", "lsp-split-header-cr", mode(LSP, 3) + b"\x01" + b"Content-Length: 3\r\n\r\n" + b"a\r\n" + b"Content-Length: 0\n\n")
write("framing", "invalid-messages", mode(NDJSON, 3) + b"\x90" + b'{"jsonrpc":"2.0","id":[1],"method":"x"}\n'
      + b'{"jsonrpc":"1.0","id":2,"method":"x"}\n{"jsonrpc":"2.0","id":null}\n{"jsonrpc":"2.0","method":7}\n42\n')

# json: [even byte][JSON text] decodes; [odd byte][generator program] encodes
texts = {
    "request": req, "notification": note, "response": resp,
    "error-response": b'{"jsonrpc":"2.0","id":9,"error":{"code":-32601,"message":"no","data":{"code":"X"}}}',
    "id-types": b'[{"jsonrpc":"2.0","id":1.5,"method":"a"},{"jsonrpc":"2.0","id":true,"method":"a"},{"jsonrpc":"2.0","id":null,"method":"a"}]',
    "numbers": b'[0,-0,9223372036854775807,-9223372036854775808,1e308,-2.5e-308,4.9e-324,1.0,3.14159265358979]',
    "strings": b'["\\u0000nul","\\ud83d\\ude00","\xc3\xa9","\\"\\\\\\/\\b\\f\\n\\r\\t","\\u00e9"]',
    "params-kinds": b'{"jsonrpc":"2.0","id":"x","method":"m","params":"no"}',
    "nested": b"[" * 64 + b"{}" + b"]" * 64,
    "duplicate-key": b'{"a":1,"a":2}',
    "invalid-utf8": b'["\xff\xfe"]',
    "lone-surrogate": b'["\\ud800"]',
    "trailing-garbage": b'{"a":1} x',
    "too-big-int": b"[92233720368547758070]",
    "nul-in-key": b'{"a\\u0000b":1}',
}
for name, text in texts.items():
    write("json", "decode-" + name, b"\x00" + text)
# generator: op % 9: 0 null, 1 bool, 2 int, 3 double, 4 string, 5 long string, 6 array, 7 object, 8 short string
write("json", "generate-object", b"\x01" + bytes([7, 3, 2, ord("i"), ord("d"), 2]) + struct.pack(">q", -5)
      + bytes([4]) + b"name" + bytes([4, 3]) + b"a\nb" + bytes([1]) + b"k" + bytes([3]) + struct.pack(">d", 2.5))
write("json", "generate-long-strings", b"\x01" + bytes([6, 3, 5, 3]) + b'"\\\x01' + b"\x10\x00" + bytes([5, 2]) + "é".encode() + b"\x00\x01"
      + bytes([3]) + struct.pack(">d", float("inf")))

# paths: [op][tokens]; op % 6: read, info, info+sha256, list, list recursive (bit 7: hidden), exclusive save
# (bit 6: an empty append instead)
VOCAB = ["a", "b", "c", "file", "deep.txt", ".hidden", "top.txt", "sp ace", "ünï", "x", "%41", "y", "up", "abs", "out",
         "outrel", "secret", "up2", "esc", "loop1", "loop2", "self", "dangling", "inner", "innerdir", "proc", "etc",
         "chain", "deeper", "outside", "root", "passwd", ".workspace", "private.txt", ".wb-staging.nosync",
         ".syncthing.x.wb-0000000000000000.tmp", "..", ".", "", "%2e%2e", "%2E", "%252e%252e", "%2f", "~", "\\", "C:",
         "new", "self/self", "up/root", "../outside", "pipe", "sock", "null", "pipelink"]
source = open(os.path.join(HERE, "Targets", "PathTree.swift"), encoding="utf-8").read()
swift_vocab = re.search(r"static let vocabulary: \[String\] = \[(.*?)\]\n", source, re.S).group(1)
assert json.loads("[" + swift_vocab.strip().rstrip(",") + "]") == VOCAB, "VOCAB is out of date with PathTree.swift"

def path(op, *names):
    out = bytes([op])
    for i, n in enumerate(names):
        out += bytes([(0x80 if i == len(names) - 1 else 0xC0) + VOCAB.index(n)])
    return out
READ, INFO, SHA, LIST, LISTR, SAVE = range(6)
for name, data in {
    "read-plain": path(READ, "a", "file"), "read-deep": path(READ, "a", "b", "c", "deep.txt"),
    "read-through-up": path(READ, "up", "root", "a", "file"), "read-out-secret": path(READ, "out", "secret"),
    "read-link-to-outside-file": path(READ, "a", "secret"), "read-escape-chain": path(READ, "a", "b", "c", "esc"),
    "read-inner-link": path(READ, "inner"), "read-self-loop": path(READ, "self", "self", "top.txt"),
    "read-loop": path(READ, "loop1"), "read-private": path(READ, ".workspace", "private.txt"),
    "read-percent-name": path(READ, "%41", "y"), "read-dotdot-literal": path(READ, "..", "outside", "secret"),
    "read-literal-ascii": bytes([READ]) + b"a/./b/../file", "info-abs": path(INFO, "abs"),
    "info-sha-top": path(SHA, "top.txt"), "info-proc": path(INFO, "proc", "etc"),
    "list-root-recursive-hidden": bytes([LISTR | 0x80]), "list-innerdir": path(LIST, "innerdir"),
    "list-a-recursive": path(LISTR, "a"), "save-new": path(SAVE, "a", "new"), "save-through-up": path(SAVE, "up", "new"),
    "save-through-out": path(SAVE, "out", "new"), "save-dangling": path(SAVE, "dangling"),
    "read-fifo": path(READ, "pipe"), "read-deep-fifo": path(READ, "a", "b", "pipe"), "read-socket": path(READ, "sock"),
    "read-device": path(READ, "null"), "read-fifo-link": path(READ, "pipelink"), "read-outside-fifo": path(READ, "out", "pipe"),
    "sha-fifo": path(SHA, "pipe"), "sha-socket": path(SHA, "sock"), "info-device": path(INFO, "null"),
    "save-over-fifo": path(SAVE, "pipe"), "append-fifo": path(SAVE | 0x40, "pipe"), "append-socket": path(SAVE | 0x40, "sock"),
    "append-device": path(SAVE | 0x40, "null"), "append-plain": path(SAVE | 0x40, "top.txt"), "append-new": path(SAVE | 0x40, "a", "new"),
}.items():
    write("paths", name, data)

# journal: [0xFF][whole journal] or 4-byte edits [op, position (2 bytes), value]; op % 7: xor, set, cut, insert,
# delete, insert zeros, append a copy of a line
def edit(op, at, value): return bytes([op]) + struct.pack(">H", at) + bytes([value])
write("journal", "intact", b"")
write("journal", "flip-a-bit-early", edit(0, 120, 0x20))
write("journal", "flip-late", edit(0, 900, 0x01))
write("journal", "cut-mid-file", edit(2, 700, 0))
write("journal", "zero-tail", edit(5, 65535, 200))
write("journal", "duplicate-a-line", edit(6, 300, 0))
write("journal", "delete-then-insert", edit(4, 400, 3) + edit(3, 410, ord("{")))
write("journal", "raw-garbage", b"\xff" + b"0000000g {\"t\":\"create\"}\n\x00\x00")
write("journal", "raw-empty", b"\xff")

# artefact-names: [even][name] classifies; [odd][stub bytes] parses an iCloud stub
for i, name in enumerate([
    "report.sync-conflict-20240102-030405-ABCDEF7.txt", ".bashrc.sync-conflict-20240102-030405-ABCDEF7",
    ".report.txt.icloud", "notes.md.nextcloud", "report (conflicted copy 2024-01-02 030405).txt",
    "report (Alice's conflicted copy 2024-01-02 (2)).txt", "report (conflict_on_2024-01-02).txt",
    "report_conflict-20240102-030405.txt", "file..path1", "file.conflict2.txt", ".syncthing.x.tmp",
    ".sync_0123456789ab.db-wal", "x.abcdef12.partial", "report (Case Conflict).txt", "plain name.txt",
]):
    write("artefact-names", "name-%02d" % i, b"\x00" + name.encode())
stub = plistlib.dumps({"NSURLNameKey": "report.pdf", "NSURLFileSizeKey": 123456}, fmt=plistlib.FMT_BINARY)
write("artefact-names", "stub-valid", b"\x01" + stub)
write("artefact-names", "stub-negative-size", b"\x01" + plistlib.dumps({"NSURLNameKey": "a", "NSURLFileSizeKey": -1}, fmt=plistlib.FMT_BINARY))
write("artefact-names", "stub-dotdot", b"\x01" + plistlib.dumps({"NSURLNameKey": "..", "NSURLFileSizeKey": 1}, fmt=plistlib.FMT_BINARY))
write("artefact-names", "stub-nested", b"\x01" + plistlib.dumps({"NSURLNameKey": ["x"], "k": {"a": [1, 2.5, b"d", True]}}, fmt=plistlib.FMT_BINARY))


# peer: [cap/ours byte: cap = [64, 1024, 1 MiB][b % 3], requests of ours waiting = b // 3 % 8][what the other side writes]
def peer_byte(cap_index, ours): return bytes([ours * 3 + cap_index])
def line(o): return json.dumps(o).encode() + b"\n"
write("peer", "requests-answers-notes", peer_byte(2, 2)
      + line({"jsonrpc": "2.0", "id": 1, "method": "echo", "params": {"a": 1}, "_meta": {"x": 1}})
      + line({"jsonrpc": "2.0", "id": "f-1", "result": {"ok": True}, "extra": 1})
      + line({"jsonrpc": "2.0", "id": "f-2", "error": {"code": -32000, "message": "no"}})
      + line({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s"}}))
write("peer", "duplicate-in-flight-and-cancel", peer_byte(2, 0)
      + line({"jsonrpc": "2.0", "id": 7, "method": "hold"}) + line({"jsonrpc": "2.0", "id": 7, "method": "hold"})
      + line({"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": 7}})
      + line({"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": 8}})
      + line({"jsonrpc": "2.0", "id": 7, "method": "echo"}))
write("peer", "invalid-and-not-json", peer_byte(2, 1)
      + b'{"jsonrpc": "2.0", "id": 1.5, "method": "x"}\n[1]\n"text"\n{not json\n{"jsonrpc":"2.0","id":null,"error":{"code":1}}\n'
      + line({"jsonrpc": "2.0", "id": 3, "method": 4}) + line({"jsonrpc": "1.0", "id": 4, "method": "x"}))
write("peer", "oversize-answer-of-ours-and-line", peer_byte(0, 3)
      + b'{"jsonrpc":"2.0","id":"f-2","result":{"pad":"' + b"x" * 100 + b'"}}\n'
      + b'{"jsonrpc":"2.0","id":9,"method":"echo","params":{"pad":"' + b"y" * 100 + b'"}}\n'
      + line({"jsonrpc": "2.0", "id": "f-1", "result": 1}))
