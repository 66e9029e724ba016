#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import JSON
import JSONRPC
import Logging
import Synchronization

/// A `Peer` (the ACP proxy's editor side and agent side alike) fed arbitrary bytes as the other
/// side's output, while it has requests of its own waiting: both directions of its message handling.
///
/// Input: byte 0 picks the message cap (64, 1024 or 1 MiB bytes) and how many requests of ours
/// wait (0 to 7: ids `f-1`…); the rest is what the other side writes. The peer answers every request
/// with its params except those whose method starts with `hold` (they stay in flight). Invariants:
/// - every line the peer writes is one JSON-RPC 2.0 message: our request, or a response with an
///   id (or null) and exactly one of result or error; every error's `data.code` is one of the
///   rules' names, its message free of Swift's debug text;
/// - a request id in flight is never delivered again (each duplicate is refused `DuplicateRequestId`);
/// - each completion of ours runs at most once; those that ran plus those still waiting make all
///   of ours; a `.cancelled` names only a request in flight.
public enum PeerTarget: FuzzTarget {
    public static let name = "peer"
    static let caps = [64, 1024, 1 << 20]
    static let codes: Set<String> = ["ParseError", "InvalidRequest", "MessageTooLarge", "DuplicateRequestId"]

    private final class Seen: Sendable {
        let state = Mutex<(inFlight: Set<RequestID>, completed: [String: Int], failure: String?)>(([], [:], nil))
    }

    public static func check(_ input: UnsafeRawBufferPointer) throws(FuzzFailure) {
        var reader = ByteReader(input)
        let b0 = Int(reader.byte())
        let cap = caps[b0 % caps.count]
        let ours = (b0 / 3) % 8
        let folder = TempFolder.make("peer")
        let inPath = folder + "/in", outPath = folder + "/out"
        let inFD = open(inPath, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        let outFD = open(outPath, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        defer { close(inFD); unlink(inPath); unlink(outPath); rmdir(folder) }
        let stream = reader.remaining
        if let base = stream.baseAddress { _ = write(inFD, base, stream.count) }
        lseek(inFD, 0, SEEK_SET)
        var logger = Logger(label: "fuzz")
        logger.logLevel = .critical
        let peer: Peer
        do {
            peer = try Peer(output: outFD, options: Peer.Options(maxMessageBytes: cap, idPrefix: "f-", cancelMethod: "$/cancel_request",
                                                                  label: "fuzz"), logger: logger, onOutputDone: { close(outFD) })
        } catch {
            throw FuzzFailure("no writer thread: \(error)")
        }
        let seen = Seen()
        for i in 0..<ours {
            let key = "f-\(i + 1)"  // the id the peer gives it (checked below)
            let (id, m) = peer.request("ask", ["n": 1]) { _ in
                seen.state.withLock { $0.completed[key, default: 0] += 1 }
            }
            try require(id == .string(key), "our request \(i + 1) got the id \(id)")
            peer.send(m)
        }
        peer.read(inFD, onIncoming: { m in
            switch m {
            case .request(let id, let method, let params, _):
                let fresh = seen.state.withLock { $0.inFlight.insert(id).inserted }
                if !fresh { seen.state.withLock { $0.failure = "request id \(id) delivered again while in flight" } }
                if !method.hasPrefix("hold") {
                    seen.state.withLock { _ = $0.inFlight.remove(id) }
                    peer.send(peer.respond(id, params ?? .null))
                }
            case .cancelled(let id, _):
                if !seen.state.withLock({ $0.inFlight.contains(id) }) {
                    seen.state.withLock { $0.failure = "a cancel of \(id), which is not in flight" }
                }
            case .notification:
                break
            }
        }, onEnd: {})
        peer.closeOutput(wait: true)
        let state = seen.state.withLock { $0 }
        if let failure = state.failure { throw FuzzFailure(failure) }
        for (id, n) in state.completed where n != 1 { throw FuzzFailure("the completion of \(id) ran \(n) times") }
        try require(state.completed.count + peer.pendingCount == ours,
                    "\(state.completed.count) completions ran and \(peer.pendingCount) wait, of \(ours) requests")
        try checkOutput(outPath)
    }

    private static func checkOutput(_ path: String) throws(FuzzFailure) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            bytes += chunk[..<n]
        }
        for line in bytes.split(separator: 10, omittingEmptySubsequences: false).dropLast() {
            let m: JSON
            do throws(JSONDecodeError) { m = try JSONCodec.decode(Array(line)) } catch {
                throw FuzzFailure("the peer wrote a line that is not JSON: \(error.reason)")
            }
            try require(m["jsonrpc"] == "2.0", "a message without jsonrpc 2.0: \(m)")
            if m["method"] != nil {
                try require(m["id"]?.stringValue?.hasPrefix("f-") == true, "a request of ours without our id: \(m)")
                continue
            }
            try require(m["id"] != nil && (m["result"] == nil) != (m["error"] == nil), "not a response: \(m)")
            if let e = m["error"] {
                let code = e["data"]?["code"]?.stringValue ?? ""
                try require(codes.contains(code), "an error named \(code): \(e)")
                let message = e["message"]?.stringValue ?? ""
                try require(!message.contains("tooLarge(") && !message.contains("FramingFault"), "Swift debug text: \(message)")
            }
        }
    }
}
