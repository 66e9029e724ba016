#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import JSON
import JSONRPC
import SystemSupport
import Workspace

/// Sync engines' conflict copies and files not yet downloaded.
enum ListConflicts: MethodDeclaration {
    static let method = "listConflicts"
    static let result = ResultShape.object(["conflicts"])
    struct Params: MethodParams {
        var path: WorkspacePath
        init(_ p: ParamReader) throws { path = try p.path("path", default: "") }
    }
    static func schedule(_ p: Params) -> Schedule { .claims([.read(p.path)]) }
    static func handle(_ p: Params, _ call: Call) throws -> JSON {
        let conflicts = try call.services.workspace().conflicts(under: p.path)
        return ["conflicts": .array(conflicts.map { c in
            ["path": .string(c.path.string), "copies": .array(c.copies.map { copy in
                var o: JSONObject = ["path": .string(copy.status.path.string), "size": .int(copy.status.size),
                                     "modified": .string(copy.status.modified)]
                if let d = copy.device { o["device"] = .string(d) }
                return .object(o)
            })]
        })]
    }
}

enum ResolveConflict: MethodDeclaration {
    static let method = "resolveConflict"
    static let result = ResultShape.object(["path", "state", "size", "etag", "modified"])
    struct Params: MethodParams {
        var path: WorkspacePath
        var keep: Workspace.Keep
        var copyPath: WorkspacePath?
        var merged: [UInt8]?
        init(_ p: ParamReader) throws {
            path = try p.path("path")
            let keep = try p.choice("keep", Workspace.Keep.allCases.map(\.rawValue)).flatMap(Workspace.Keep.init)
            merged = try p.optionalPayload(key: "mergedData")
            guard keep != nil || merged != nil || p.isDescribing else {
                throw RPCError.invalidParams(field: "keep", expected: "\"current\", \"copy\" or \"both\" (or mergedData)", got: "nothing")
            }
            self.keep = keep ?? .current
            copyPath = try p.string("copyPath").map { c throws(WorkspaceError) in try WorkspacePath(c) }
        }
    }
    /// The original and its copies live in one folder: claim the folder.
    static func schedule(_ p: Params) -> Schedule { .claims([.write(p.path.parent)]) }
    static func handle(_ p: Params, _ call: Call) throws -> JSON {
        let s = try call.services.workspace().resolveConflict(p.path, keep: p.keep, copyPath: p.copyPath, merged: p.merged)
        return ["path": .string(s.path.string), "state": .string(s.state), "size": .int(s.size), "etag": .string(s.etag),
                "modified": .string(s.modified)]
    }
}

enum DownloadFile: MethodDeclaration {
    static let method = "downloadFile"
    static let result = ResultShape.object(FileStatus.writeResultFields)
    struct Params: MethodParams {
        var path: WorkspacePath
        var timeout: Int64
        init(_ p: ParamReader) throws {
            path = try p.path("path")
            timeout = try p.int("timeoutMs", in: 0...3_600_000) ?? 30_000
        }
    }
    static func schedule(_ p: Params) -> Schedule { .claims([.read(p.path)]) }
    static func handle(_ p: Params, _ call: Call) throws -> JSON {
        let ws = try call.services.workspace()
        let deadline = MonotonicClock.nanos() + UInt64(p.timeout) * 1_000_000
        call.progress?.begin(title: "Downloading \(p.path.name)")
        while true {
            try call.checkCancellation()
            let s = try ws.status(p.path)
            if s.state != "notDownloaded" {
                call.progress?.end(message: "downloaded")
                return s.writeResult
            }
            guard MonotonicClock.nanos() < deadline else {
                throw WorkspaceError(.notDownloaded, "'\(p.path)' did not finish downloading within \(p.timeout) ms",
                                     path: p.path.string, details: ["retryAfterMs": .int(1000)])
            }
            usleep(100_000)
        }
    }
}
