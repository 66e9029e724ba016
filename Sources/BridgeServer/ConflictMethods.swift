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
    static let reaches: Set<Capability> = [.workspace]
    struct Params: MethodParams {
        var path: WorkspacePath
        init(_ p: ParamReader) throws { path = try p.path("path", default: "") }
    }
    static func schedule(_ p: Params) -> Schedule { .claims([.read(p.path)]) }
    static func handle(_ p: Params, _ call: Call) throws -> Result {
        Result(conflicts: try call.services.workspace().conflicts(under: p.path).map(Conflict.init))
    }

    struct Result: ObjectResult {
        var conflicts: [Conflict]
        static let fields: [ResultField<Self>] = [.field("conflicts", \.conflicts)]
    }

    /// A file with sync-engine copies of it.
    struct Conflict: ObjectResult {
        var conflict: Workspace.Conflict
        static let fields: [ResultField<Self>] = [.field("path", \.conflict.path), .field("copies", { $0.conflict.copies.map { Copy(status: $0.status, device: $0.device) } })]
    }

    struct Copy: ObjectResult {
        var status: FileStatus
        var device: String?
        static let fields: [ResultField<Self>] = [.field("path", \.status.path), .field("size", \.status.size),
                                                   .field("modified", \.status.modified), .field("device", \.device)]
    }
}

enum ResolveConflict: MethodDeclaration {
    static let method = "resolveConflict"
    static let reaches: Set<Capability> = [.workspace]
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
    static func handle(_ p: Params, _ call: Call) throws -> Result {
        Result(status: try call.services.workspace().resolveConflict(p.path, keep: p.keep, copyPath: p.copyPath, merged: p.merged))
    }

    struct Result: ObjectResult {
        var status: FileStatus
        static let fields: [ResultField<Self>] = [.field("path", \.status.path), .field("state", \.status.state),
                                                   .field("size", \.status.size), .field("etag", \.status.etag),
                                                   .field("modified", \.status.modified)]
    }
}

enum DownloadFile: MethodDeclaration {
    static let method = "downloadFile"
    static let reaches: Set<Capability> = [.workspace]
    struct Params: MethodParams {
        var path: WorkspacePath
        var timeout: Int64
        init(_ p: ParamReader) throws {
            path = try p.path("path")
            timeout = try p.int("timeoutMs", in: 0...3_600_000) ?? 30_000
        }
    }
    static func schedule(_ p: Params) -> Schedule { .claims([.read(p.path)]) }
    static func handle(_ p: Params, _ call: Call) throws -> WriteResult {
        let ws = try call.services.workspace()
        let deadline = MonotonicClock.nanos() + UInt64(p.timeout) * 1_000_000
        call.progress?.begin(title: "Downloading \(p.path.name)")
        while true {
            try call.checkCancellation()
            let s = try ws.status(p.path)
            if s.state != "notDownloaded" {
                call.progress?.end(message: "downloaded")
                return WriteResult(s)
            }
            guard MonotonicClock.nanos() < deadline else {
                throw WorkspaceError(.notDownloaded, "'\(p.path)' did not finish downloading within \(p.timeout) ms",
                                     path: p.path.string, details: ["retryAfterMs": .int(1000)])
            }
            usleep(100_000)
        }
    }
}
