#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import JSON
import JSONRPC
import Logging
import SystemSupport

/// Methods for tests and benchmarks, offered only with `--enable-debug-methods`.
/// They exercise the connection's machinery (ordering, cancellation, progress, errors,
/// large payloads) through the real binary.
enum DebugMethods {
    static let all: [any MethodDeclaration.Type] = [
        DebugEcho.self, DebugSleep.self, DebugBlock.self, DebugFail.self, DebugLog.self, DebugBlob.self,
    ]

    struct DebugFailure: Error, CustomStringConvertible {
        var description: String { "debug/fail asked for an internal error" }
    }

    struct DebugNotFound: DomainError {
        var dataCode: String { "NotFound" }
        var message: String { "debug/fail asked for a domain error" }
        var data: JSONObject { ["path": "debug"] }
    }

    /// Readable text with quotes and newlines (so escaping is exercised), exactly `bytes` long.
    static func text(bytes: Int) -> String {
        let line = Array("The quick brown fox \"jumps\" over the lazy dog.\n".utf8)
        // Written straight into the string's storage: one buffer, not a byte array copied again.
        return String(unsafeUninitializedCapacity: bytes) { out in
            var at = 0
            while at < bytes {
                let n = min(line.count, bytes - at)
                _ = UnsafeMutableBufferPointer(rebasing: out[at..<at + n]).initialize(from: line.prefix(n))
                at += n
            }
            return bytes
        }
    }
}

enum DebugEcho: MethodDeclaration {
    static let method = "debug/echo"
    static let reaches: Set<Capability> = [.debugging]
    static func schedule(_ p: Params) -> Schedule { .free }
    struct Params: MethodParams {
        var value: JSON
        init(_ p: ParamReader) throws { value = try p.required("value") }
    }
    static func handle(_ p: Params, _ call: Call) throws -> Result { Result(value: p.value) }
    struct Result: ObjectResult {
        var value: JSON
        static let fields: [ResultField<Self>] = [.field("value", \.value)]
    }
}

enum DebugSleep: MethodDeclaration {
    static let method = "debug/sleep"
    static let reaches: Set<Capability> = [.debugging]
    struct Params: MethodParams {
        var ms: Int64
        var label: String
        var key: String?
        var access: Claim.Access
        init(_ p: ParamReader) throws {
            ms = try p.requiredInt("ms", in: 0...600_000)
            label = try p.string("label") ?? ""
            access = try p.choice("access", ["read", "write"]) == "read" ? .read : .write
            key = try p.string("key")
        }
    }
    static func schedule(_ p: Params) -> Schedule {
        guard let key = p.key else { return .free }
        return .claims([Claim("debug", path: key, access: p.access)])
    }
    static func handle(_ p: Params, _ call: Call) throws -> Result {
        let ms = p.ms
        let started = MonotonicClock.nanos()
        let deadline = started + UInt64(ms) * 1_000_000
        call.progress?.begin(title: "Sleeping", message: "\(ms) ms", percentage: 0)
        while true {
            try call.checkCancellation()
            let now = MonotonicClock.nanos()
            if now >= deadline { break }
            if ms > 0 { call.progress?.report(percentage: Int((now - started) * 100 / (UInt64(ms) * 1_000_000))) }
            usleep(UInt32(min(1_000, (deadline - now) / 1_000)))
        }
        call.progress?.end(message: "done")
        return Result(label: p.label, startedAt: Int64(started), finishedAt: Int64(MonotonicClock.nanos()))
    }

    struct Result: ObjectResult {
        var label: String
        var startedAt: Int64
        var finishedAt: Int64
        static let fields: [ResultField<Self>] = [.field("label", \.label), .field("startedAt", \.startedAt),
                                                   .field("finishedAt", \.finishedAt)]
    }
}

/// `debug/block` declares a claim on its path (read by default), so a test can show what a
/// cancel does to a stuck reader and to a stuck writer.
enum DebugBlock: MethodDeclaration {
    static let method = "debug/block"
    static let reaches: Set<Capability> = [.debugging]
    struct Params: MethodParams {
        var path: String
        var access: Claim.Access
        init(_ p: ParamReader) throws {
            path = try p.requiredString("path")
            access = try p.choice("access", ["read", "write"]) == "write" ? .write : .read
        }
    }
    static func schedule(_ p: Params) -> Schedule { .claims([Claim("debug", path: p.path, access: p.access)]) }

    /// Reads a host file (meant for a FIFO nobody writes to) with blocking system calls, to the
    /// end: a handler stuck in `open`/`read` that no cancellation flag can reach, as on a hung
    /// network mount.
    static func handle(_ p: Params, _ call: Call) throws -> Result {
        let fd = open(p.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw RPCError.invalidParams(field: "path", expected: "a readable host path", got: "errno \(errno)") }
        defer { close(fd) }
        var total: Int64 = 0
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            total += Int64(n)
        }
        return Result(bytes: total)
    }

    struct Result: ObjectResult {
        var bytes: Int64
        static let fields: [ResultField<Self>] = [.field("bytes", \.bytes)]
    }
}

enum DebugFail: MethodDeclaration {
    static let method = "debug/fail"
    static let reaches: Set<Capability> = [.debugging]
    static let inline = true
    static func schedule(_ p: Params) -> Schedule { .free }
    struct Params: MethodParams {
        var domain: Bool
        init(_ p: ParamReader) throws { domain = try p.choice("kind", ["internal", "domain"]) == "domain" }
    }
    static func handle(_ p: Params, _ call: Call) throws -> ChosenResult {
        if p.domain { throw DebugMethods.DebugNotFound() }
        throw DebugMethods.DebugFailure()
    }
}

enum DebugLog: MethodDeclaration {
    static let method = "debug/log"
    static let reaches: Set<Capability> = [.debugging]
    static let inline = true
    static func schedule(_ p: Params) -> Schedule { .free }
    struct Params: MethodParams {
        var level: Logger.Level
        var message: String
        init(_ p: ParamReader) throws {
            level = Logger.Level(rawValue: try p.choice("level", Logger.Level.allCases.map(\.rawValue)) ?? "info") ?? .info
            message = try p.requiredString("message")
        }
    }
    static func handle(_ p: Params, _ call: Call) throws -> EmptyResult {
        call.logger.log(level: p.level, "\(p.message)")
        return EmptyResult()
    }
}

enum DebugBlob: MethodDeclaration {
    static let method = "debug/blob"
    static let reaches: Set<Capability> = [.debugging]
    static func schedule(_ p: Params) -> Schedule { .free }
    struct Params: MethodParams {
        var bytes: Int
        init(_ p: ParamReader) throws { bytes = Int(try p.requiredInt("bytes", in: 0...(1 << 30))) }
    }
    static func handle(_ p: Params, _ call: Call) throws -> Result { Result(data: DebugMethods.text(bytes: p.bytes)) }
    struct Result: ObjectResult {
        var data: String
        static let fields: [ResultField<Self>] = [.field("data", \.data)]
    }
}
