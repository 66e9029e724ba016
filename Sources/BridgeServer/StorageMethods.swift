#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import JSON
import JSONRPC
import Storage
import SystemSupport
import Workspace

/// `getStorageInfo` and `chooseStorage`: the seeds' storage screen.
enum StorageMethods {
    static func register(_ methods: inout [Method]) {
        methods.append(FileMethods.method("listConflicts", claims: FileMethods.read("path", default: "")) { ws, p, _ in
            let conflicts = try ws.conflicts(under: try p.path("path", default: ""))
            return ["conflicts": .array(conflicts.map { c in
                ["path": .string(c.path.string), "copies": .array(c.copies.map { copy in
                    var o: JSONObject = ["path": .string(copy.status.path.string), "size": .int(copy.status.size),
                                         "modified": .string(copy.status.modified)]
                    if let d = copy.device { o["device"] = .string(d) }
                    return .object(o)
                })]
            })]
        })
        methods.append(FileMethods.method("resolveConflict", claims: { p in
            // The original and its copies live in one folder: claim the folder.
            [.write("file", try p.path("path").parent.string)]
        }) { ws, p, _ in
            let keep = try p.choice("keep", Workspace.Keep.allCases.map(\.rawValue)).flatMap(Workspace.Keep.init)
            let merged: [UInt8]? = p["mergedData"] == nil ? nil : try p.payload(key: "mergedData")
            guard keep != nil || merged != nil else {
                throw RPCError.invalidParams(field: "keep", expected: "\"current\", \"copy\" or \"both\" (or mergedData)", got: "nothing")
            }
            let copyPath = try p.string("copyPath").map { c throws(WorkspaceError) in try WorkspacePath(c) }
            let s = try ws.resolveConflict(try p.path("path"), keep: keep ?? .current, copyPath: copyPath, merged: merged)
            return ["path": .string(s.path.string), "state": .string(s.state), "size": .int(s.size), "etag": .string(s.etag),
                    "modified": .string(s.modified)]
        })
        methods.append(FileMethods.method("downloadFile", claims: FileMethods.read("path")) { ws, p, ctx in
            let path = try p.path("path")
            let timeout = try p.int("timeoutMs", in: 0...3_600_000) ?? 30_000
            let deadline = MonotonicClock.nanos() + UInt64(timeout) * 1_000_000
            ctx.progress?.begin(title: "Downloading \(path.name)")
            while true {
                try ctx.checkCancellation()
                let s = try ws.status(path)
                if s.state != "notDownloaded" {
                    ctx.progress?.end(message: "downloaded")
                    return s.writeResult
                }
                guard MonotonicClock.nanos() < deadline else {
                    throw WorkspaceError(.notDownloaded, "'\(path)' did not finish downloading within \(timeout) ms",
                                         path: path.string, details: ["retryAfterMs": .int(1000)])
                }
                usleep(100_000)
            }
        })
        // A migration reads and writes the whole workspace: a barrier, like chooseStorage.
        methods.append(Method("migrate", schedule: { params in
            _ = try migrationOptions(try Params(params))
            return .barrier
        }) { ctx in
            let server = try LifecycleMethods.server(ctx)
            let options = try migrationOptions(try ctx.paramsObject())
            let storage = try server.storage()
            let before = try? storage.manager.active()
            ctx.progress?.begin(title: "Moving the workspace to \(options.to.rawValue) storage", percentage: 0)
            let report = try Migration(manager: storage.manager, options: options).run(isCancelled: { ctx.isCancelled }) { p in
                let pct = p.bytesTotal > 0 ? Int(p.bytesDone * 100 / p.bytesTotal) : Int(p.filesDone * 100 / max(1, p.filesTotal))
                ctx.progress?.report(message: "\(p.filesDone)/\(p.filesTotal) files: \(p.currentPath)", percentage: pct)
            }
            ctx.progress?.end(message: report.switched ? "done" : "dry run")
            if let after = try? storage.manager.active(), before !== after {
                try server.changes.retarget(after, connection: ctx.serving)
            }
            return [
                "copied": .int(Int64(report.copied)), "skipped": .int(Int64(report.skipped)),
                "conflicts": .int(Int64(report.conflicts)), "bytes": .int(report.bytes), "verified": .int(Int64(report.verified)),
                "durationMs": .int(Int64(report.durationMs)), "switched": .bool(report.switched), "resumed": .bool(report.resumed),
                "alreadyActive": .bool(report.alreadyActive),
                "notDownloaded": .array(report.notDownloaded.map(JSON.string)),
                "skippedEntries": FileMethods.skipped(report.skippedEntries),
                "renamed": .array(report.renamed.map { ["from": .string($0.from), "to": .string($0.to)] }),
            ]
        })
        // Read-only and cheap: answered even while a migration runs (to show where it is).
        methods.append(Method("getStorageInfo", schedule: { _ in .unordered }) { ctx in
            try LifecycleMethods.server(ctx).storage().info().json
        })
        // Switching roots must not interleave with file operations: a barrier.
        methods.append(Method("chooseStorage", schedule: { params in
            _ = try Params(params).choice("location", StorageChoice.allCases.map(\.rawValue))
            return .barrier
        }) { ctx in
            let server = try LifecycleMethods.server(ctx)
            let p = try ctx.paramsObject()
            guard let raw = try p.choice("location", StorageChoice.allCases.map(\.rawValue)),
                let choice = StorageChoice(rawValue: raw)
            else { throw RPCError.invalidParams(field: "location", expected: "\"local\", \"cloud\" or \"decideLater\"", got: "nothing") }
            let storage = try server.storage()
            let before = try? storage.manager.active()
            let (info, alreadyActive) = try storage.choose(choice)
            let after = try storage.manager.active()
            if before !== after { try server.changes.retarget(after, connection: ctx.serving) }
            guard case .object(var o) = info.json else { return info.json }
            o["alreadyActive"] = .bool(alreadyActive)
            return .object(o)
        })
    }
}

extension StorageMethods {
    static func migrationOptions(_ p: Params) throws -> Migration.Options {
        guard let to = try p.choice("to", StorageLocation.allCases.map(\.rawValue)).flatMap(StorageLocation.init) else {
            throw RPCError.invalidParams(field: "to", expected: "\"local\" or \"cloud\"", got: "nothing")
        }
        var o = Migration.Options(to: to)
        if let m = try p.choice("mode", Migration.Mode.allCases.map(\.rawValue)) { o.mode = Migration.Mode(rawValue: m)! }
        if let c = try p.choice("onConflict", Migration.OnConflict.allCases.map(\.rawValue)) { o.onConflict = Migration.OnConflict(rawValue: c)! }
        o.dryRun = try p.bool("dryRun") ?? false
        return o
    }
}
