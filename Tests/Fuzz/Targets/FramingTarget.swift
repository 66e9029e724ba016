import JSON
import JSONRPC

/// The framing reader, in both framings and auto-detection, fed in chunks whose sizes come
/// from the input.
///
/// Input: byte 0 picks the mode (auto, lsp, ndjson) and the message cap (8, 64, 1024 or 1 MiB
/// bytes); byte 1 seeds the chunk sizes (1 to 16 bytes, or 1 to 512 when its high bit is set);
/// the rest is the byte stream. Invariants:
/// - chunking changes nothing: the bodies and faults equal those of one whole append (for
///   streams no longer than the header cap, where the whole append could not differ
///   legitimately; a too-large NDJSON line's size is known only when it arrives whole);
/// - after each chunk is drained, at most max(cap, header cap) + 16 bytes stay buffered;
/// - every body fits the cap; an NDJSON body holds no newline and is not blank;
/// - the bodies, framed again by the server's own framer, decode to the same bodies;
/// - a body that is JSON re-encodes to bytes that frame and decode unchanged, and is
///   classified consistently (see `MessageChecks`).
public enum FramingTarget: FuzzTarget {
    public static let name = "framing"
    static let caps = [8, 64, 1024, 1 << 20]
    /// `FrameDecoder.maxHeaderBytes`.
    static let headerCap = 8192

    struct Run {
        var messages: [[UInt8]] = []
        var faults: [FramingFault] = []
        var framing: Framing?
    }

    public static func check(_ input: UnsafeRawBufferPointer) throws(FuzzFailure) {
        var reader = ByteReader(input)
        let b0 = Int(reader.byte())
        let mode = [FramingMode.auto, .lsp, .ndjson][b0 % 3]
        let cap = caps[(b0 / 3) % caps.count]
        let seed = reader.byte()
        let stream = Array(reader.remaining)

        let whole = try decode(stream, mode: mode, cap: cap, chunkSeed: nil)
        let chunked = try decode(stream, mode: mode, cap: cap, chunkSeed: seed)
        if stream.count <= headerCap {
            try require(whole.messages == chunked.messages,
                        "bodies differ with chunking: whole \(show(whole.messages)), chunked \(show(chunked.messages))")
            let w = normalized(whole), c = normalized(chunked)
            try require(w == c, "faults differ with chunking: whole \(w), chunked \(c)")
            try require(whole.framing == chunked.framing, "auto-detection depends on chunking")
        }
        guard let framing = chunked.framing else {
            try require(chunked.messages.isEmpty, "bodies without a framing")
            return
        }
        for body in chunked.messages {
            try require(body.count <= cap, "a body of \(body.count) bytes passed the cap of \(cap)")
            if framing == .ndjson {
                try require(!body.contains(10), "an NDJSON body holds a newline")
                try require(!body.allSatisfy { [32, 9, 13, 10].contains($0) }, "a blank NDJSON line became a body")
            }
        }
        try reframe(chunked.messages, framing: framing)
        for body in chunked.messages {
            guard let json = try? JSONCodec.decode(body) else { continue }
            let encoded = JSONCodec.encode(json)
            try require(!encoded.contains(10), "encoded JSON holds a raw newline")
            try reframe([encoded], framing: framing)
            try MessageChecks.check(json)
        }
    }

    /// Frames `bodies` with the server's framer and decodes them again: the same bodies, no faults.
    /// (An NDJSON body ending in CR is skipped: the line reader rightly drops a CR before LF.)
    static func reframe(_ bodies: [[UInt8]], framing: Framing) throws(FuzzFailure) {
        let kept = bodies.filter { framing == .lsp || $0.last != 13 }
        var wire: [UInt8] = []
        for body in kept { framing.frame(body, into: &wire) }
        let cap = max(1, kept.map(\.count).max() ?? 1)
        let again = try decode(wire, mode: framing == .lsp ? .lsp : .ndjson, cap: cap, chunkSeed: nil)
        try require(again.faults.isEmpty, "re-framed bodies gave faults: \(again.faults)")
        try require(again.messages == kept, "re-framed bodies decode differently: \(show(kept)) → \(show(again.messages))")
    }

    static func decode(_ stream: [UInt8], mode: FramingMode, cap: Int, chunkSeed: UInt8?) throws(FuzzFailure) -> Run {
        var decoder = FrameDecoder(mode: mode, maxMessageBytes: cap)
        var run = Run()
        guard let seed = chunkSeed else {
            decoder.append(stream)
            drain(&decoder, into: &run)
            run.framing = decoder.framing
            return run
        }
        var rng = SplitMix(seed: UInt64(seed))
        let maxChunk = seed & 0x80 != 0 ? 512 : 16
        var at = 0
        while at < stream.count {
            let n = min(stream.count - at, 1 + rng.below(maxChunk))
            decoder.append(Array(stream[at..<(at + n)]))
            at += n
            drain(&decoder, into: &run)
            let bound = max(cap, headerCap) + 16
            try require(decoder.bufferedBytes <= bound,
                        "\(decoder.bufferedBytes) bytes buffered after draining, more than \(bound)")
        }
        run.framing = decoder.framing
        return run
    }

    private static func drain(_ decoder: inout FrameDecoder, into run: inout Run) {
        while let event = decoder.next() {
            switch event {
            case .message(let range): run.messages.append(decoder.withBody(range) { Array($0) })
            case .fault(let fault): run.faults.append(fault)
            }
        }
    }

    /// Faults with the size of too-large NDJSON lines dropped (known only for a whole line).
    private static func normalized(_ run: Run) -> [FramingFault] {
        run.faults.map { fault in
            if run.framing == .ndjson, case .tooLarge(_, let limit) = fault { return .tooLarge(size: nil, limit: limit) }
            return fault
        }
    }

    static func show(_ bodies: [[UInt8]]) -> String {
        "[" + bodies.map { "\"" + String(decoding: $0.prefix(80), as: UTF8.self) + "\"" }.joined(separator: ", ") + "]"
    }
}
