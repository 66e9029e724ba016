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
    struct DebugFailure: Error, CustomStringConvertible {
        var description: String { "debug/fail asked for an internal error" }
    }

    struct DebugNotFound: DomainError {
        var dataCode: String { "NotFound" }
        var message: String { "debug/fail asked for a domain error" }
        var data: JSONObject { ["path": "debug"] }
    }

    static func register(_ methods: inout [Method]) {
        methods.append(Method("debug/echo") { ctx in
            let p = try ctx.paramsObject()
            return ["value": try p.required("value")]
        })
        methods.append(Method("debug/sleep", schedule: sleepSchedule) { ctx in
            try sleep(ctx)
        })
        methods.append(Method("debug/block", schedule: blockSchedule) { ctx in
            try block(ctx)
        })
        methods.append(Method("debug/fail", inline: true) { ctx in
            let p = try ctx.paramsObject()
            switch try p.choice("kind", ["internal", "domain"]) ?? "internal" {
            case "domain": throw DebugNotFound()
            default: throw DebugFailure()
            }
        })
        methods.append(Method("debug/log", inline: true) { ctx in
            let p = try ctx.paramsObject()
            let levels = Logger.Level.allCases.map(\.rawValue)
            let level = Logger.Level(rawValue: try p.choice("level", levels) ?? "info") ?? .info
            let message = try p.requiredString("message")
            ctx.logger.log(level: level, "\(message)")
            return .object(JSONObject())
        })
        methods.append(Method("debug/blob") { ctx in
            let p = try ctx.paramsObject()
            let n = Int(try p.requiredInt("bytes", in: 0...(1 << 30)))
            return ["data": .string(text(bytes: n))]
        })
    }

    static let sleepSchedule: Method.Scheduler = { params in
        let p = try Params(params)
        _ = try p.requiredInt("ms", in: 0...600_000)
        _ = try p.string("label")
        let access = try p.choice("access", ["read", "write"]) ?? "write"
        guard let key = try p.string("key") else { return .free }
        return .claims([Claim("debug", path: key, access: access == "read" ? .read : .write)])
    }

    static func sleep(_ ctx: RequestContext) throws -> JSON {
        let p = try ctx.paramsObject()
        let ms = try p.requiredInt("ms", in: 0...600_000)
        let label = try p.string("label") ?? ""
        let started = MonotonicClock.nanos()
        let deadline = started + UInt64(ms) * 1_000_000
        ctx.progress?.begin(title: "Sleeping", message: "\(ms) ms", percentage: 0)
        while true {
            try ctx.checkCancellation()
            let now = MonotonicClock.nanos()
            if now >= deadline { break }
            if ms > 0 { ctx.progress?.report(percentage: Int((now - started) * 100 / (UInt64(ms) * 1_000_000))) }
            usleep(UInt32(min(1_000, (deadline - now) / 1_000)))
        }
        ctx.progress?.end(message: "done")
        return ["label": .string(label), "startedAt": .int(Int64(started)),
                "finishedAt": .int(Int64(MonotonicClock.nanos()))]
    }

    /// `debug/block` declares a claim on its path (read by default), so a test can show what a
    /// cancel does to a stuck reader and to a stuck writer.
    static let blockSchedule: Method.Scheduler = { params in
        let p = try Params(params)
        let path = try p.requiredString("path")
        let access = try p.choice("access", ["read", "write"]) ?? "read"
        return .claims([Claim("debug", path: path, access: access == "read" ? .read : .write)])
    }

    /// Reads a host file (meant for a FIFO nobody writes to) with blocking system calls, to the
    /// end: a handler stuck in `open`/`read` that no cancellation flag can reach, as on a hung
    /// network mount.
    static func block(_ ctx: RequestContext) throws -> JSON {
        let path = try ctx.paramsObject().requiredString("path")
        let fd = open(path, O_RDONLY | O_CLOEXEC)
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
        return ["bytes": .int(total)]
    }

    /// Readable text with quotes and newlines (so escaping is exercised), exactly `bytes` long.
    static func text(bytes: Int) -> String {
        let line = Array("The quick brown fox \"jumps\" over the lazy dog.\n".utf8)
        var out = [UInt8]()
        out.reserveCapacity(bytes)
        while out.count < bytes { out.append(contentsOf: line.prefix(bytes - out.count)) }
        return String(decoding: out, as: UTF8.self)
    }
}
