import JSONRPC
import Testing

/// Feeds bytes in the given chunks and collects what the decoder produces.
private func decode(_ chunks: [[UInt8]], mode: FramingMode, max: Int = 1 << 20) -> [String] {
    var d = FrameDecoder(mode: mode, maxMessageBytes: max)
    var out: [String] = []
    for c in chunks {
        d.append(c)
        while let e = d.next() {
            switch e {
            case .message(let r): out.append(d.withBody(r) { String(decoding: $0, as: UTF8.self) })
            case .fault(let f): out.append("fault:\(f)")
            }
        }
    }
    return out
}

private func lsp(_ body: String, headers: String = "") -> [UInt8] {
    Array("Content-Length: \(body.utf8.count)\r\n\(headers)\r\n\(body)".utf8)
}

private func bytewise(_ bytes: [UInt8]) -> [[UInt8]] { bytes.map { [$0] } }

@Suite("Framing")
struct FrameDecoderTests {
    @Test("LSP: messages split byte by byte are reassembled", arguments: [FramingMode.lsp, .auto])
    func lspBytewise(mode: FramingMode) {
        let stream = lsp(#"{"a":1}"#) + lsp(#"{"b":"é"}"#)
        #expect(decode(bytewise(stream), mode: mode) == [#"{"a":1}"#, #"{"b":"é"}"#])
    }

    @Test("LSP: several messages in one read")
    func lspMerged() {
        let stream = lsp("{}") + lsp("[1]") + lsp(#"{"x":"y"}"#)
        #expect(decode([stream], mode: .lsp) == ["{}", "[1]", #"{"x":"y"}"#])
    }

    @Test("LSP: Content-Length counts bytes, not characters")
    func lspByteCount() {
        let body = #"{"t":"日本語 ✓ 😀"}"#
        #expect(body.utf8.count > body.count)
        #expect(decode([lsp(body) + lsp("{}")], mode: .lsp) == [body, "{}"])
    }

    @Test("LSP: header names are case-insensitive, unknown headers ignored, utf8 charsets accepted")
    func lspHeaders() {
        let body = "{}"
        var s = Array("content-LENGTH: 2\r\nX-Whatever: 1\r\nContent-Type: application/vscode-jsonrpc; charset=utf8\r\n\r\n{}".utf8)
        s += lsp(body, headers: "Content-Type: application/json; charset=\"UTF-8\"\r\n")
        #expect(decode([s], mode: .lsp) == ["{}", "{}"])
    }

    @Test("LSP: another charset is refused and its body skipped")
    func lspCharset() {
        let s = lsp(#"{"a":1}"#, headers: "Content-Type: application/json; charset=latin-1\r\n") + lsp("{}")
        #expect(decode(bytewise(s), mode: .lsp) == ["fault:unsupportedCharset(\"latin-1\")", "{}"])
    }

    @Test("LSP: a missing or bad Content-Length is reported and the next message is served")
    func lspBadHeader() {
        let s = Array("Content-Length: abc\r\n\r\n{\"lost\":1}".utf8) + lsp(#"{"next":1}"#)
        let out = decode([s], mode: .lsp)
        #expect(out.count == 2)
        #expect(out[0].hasPrefix("fault:invalidHeader"))
        #expect(out[1] == #"{"next":1}"#)
        let s2 = Array("X-Foo: 1\r\n\r\n".utf8) + lsp("{}")
        #expect(decode(bytewise(s2), mode: .lsp).last == "{}")
    }

    @Test("LSP: an oversized message is refused, skipped without buffering, and the stream stays in sync")
    func lspOversized() {
        var d = FrameDecoder(mode: .lsp, maxMessageBytes: 100)
        let big = String(repeating: "x", count: 1_000_000)
        d.append(Array("Content-Length: \(big.utf8.count + 2)\r\n\r\n\"".utf8))
        #expect(d.next() == .fault(.tooLarge(size: 1_000_002, limit: 100)))
        var maxHeld = 0
        for chunk in Array((big + "\"").utf8).chunked(4096) {
            d.append(chunk)
            #expect(d.next() == nil)
            maxHeld = max(maxHeld, d.bufferedBytes)
        }
        #expect(maxHeld == 0)
        d.append(lsp("{}"))
        guard case .message(let r)? = d.next() else { Issue.record("no message after the skipped one"); return }
        #expect(d.withBody(r) { Array($0) } == Array("{}".utf8))
    }

    @Test("NDJSON: lines split byte by byte, CRLF tolerated, blank lines ignored", arguments: [FramingMode.ndjson, .auto])
    func ndjson(mode: FramingMode) {
        let s = Array("{\"a\":1}\r\n\n   \n[2]\n{\"c\":\"é\"}\n".utf8)
        #expect(decode(bytewise(s), mode: mode) == [#"{"a":1}"#, "[2]", #"{"c":"é"}"#])
    }

    @Test("NDJSON: an oversized line is refused once and the next line is served")
    func ndjsonOversized() {
        let long = "[" + String(repeating: "1,", count: 500) + "1]\n"
        let out = decode(Array((long + "{}\n").utf8).chunked(7), mode: .ndjson, max: 100)
        #expect(out == ["fault:tooLarge(size: nil, limit: 100)", "{}"])
    }

    @Test("auto: the first non-whitespace byte decides the framing")
    func autoDetect() {
        var d = FrameDecoder(mode: .auto, maxMessageBytes: 1000)
        d.append(Array(" \n {}\n".utf8))
        _ = d.next()
        #expect(d.framing == .ndjson)
        var l = FrameDecoder(mode: .auto, maxMessageBytes: 1000)
        l.append(lsp("{}"))
        _ = l.next()
        #expect(l.framing == .lsp)
    }

    @Test("a 16 MiB message in 64 KiB reads is decoded with linear buffering")
    func largeMessage() {
        let body = "\"" + String(repeating: "y", count: 16 << 20) + "\""
        var d = FrameDecoder(mode: .lsp, maxMessageBytes: 64 << 20)
        var got = 0
        let clock = ContinuousClock()
        let elapsed = clock.measure {
            for chunk in lsp(body).chunked(64 << 10) {
                d.append(chunk)
                while let e = d.next() { if case .message(let r) = e { got = r.count } }
            }
        }
        #expect(got == body.utf8.count)
        // A hang guard, not a speed: quadratic buffering would take minutes here; linear takes milliseconds.
        #expect(elapsed < .seconds(10))
    }
}

extension Array {
    func chunked(_ n: Int) -> [[Element]] {
        stride(from: 0, to: count, by: n).map { Array(self[$0..<Swift.min($0 + n, count)]) }
    }
}
