import JSON
import JSONRPC
import Storage
import Workspace

/// The workspace file API: each method decodes params, declares what it touches, calls one
/// `Workspace` function and encodes the result.
enum FileMethods {
    /// One read costs at most this many bytes of file (base64 makes it 4/3 on the wire).
    static let maxReadBytes: Int64 = 16 << 20

    typealias Body = @Sendable (Workspace, Params, RequestContext) throws -> JSON

    static func method(_ name: String, claims: @escaping @Sendable (Params) throws -> [Claim],
                       _ body: @escaping Body) -> Method {
        Method(name, schedule: { params in
            .claims(try claims(try Params(params)))
        }) { ctx in
            let server = try LifecycleMethods.server(ctx)
            return try body(try server.workspace(), try ctx.paramsObject(), ctx)
        }
    }

    static func read(_ key: String, default d: String? = nil) -> @Sendable (Params) throws -> [Claim] {
        { p in [.read("file", try p.path(key, default: d).string)] }
    }

    static func write(_ keys: String...) -> @Sendable (Params) throws -> [Claim] {
        { p in try keys.map { k in .write("file", try p.path(k).string) } }
    }

    static func register(_ methods: inout [Method]) {
        methods.append(method("saveFile", claims: write("path")) { ws, p, _ in
            let options = Workspace.SaveOptions(createParents: try p.bool("createParents") ?? true,
                                                ifMatch: try p.string("ifMatch"), exclusive: try p.bool("exclusive") ?? false)
            return try ws.save(try p.path("path"), contents: try p.payload(), options: options).writeResult
        })
        methods.append(method("appendFile", claims: write("path")) { ws, p, _ in
            try ws.append(try p.path("path"), contents: try p.payload(), createParents: try p.bool("createParents") ?? true).writeResult
        })
        methods.append(method("loadFile", claims: read("path")) { ws, p, ctx in try load(ws, p, ctx) })
        methods.append(method("getFileInfo", claims: read("path")) { ws, p, ctx in
            let hash = try p.choice("hash", ["sha256"])
            let (s, sha) = try ws.info(try p.path("path"), sha256: hash != nil, isCancelled: { ctx.isCancelled })
            return info(s, sha256: sha)
        })
        methods.append(method("listFiles", claims: read("path", default: "")) { ws, p, ctx in try list(ws, p, ctx) })
        methods.append(method("deleteFile", claims: write("path")) { ws, p, ctx in
            let path = try p.path("path")
            try ws.delete(path, recursive: try p.bool("recursive") ?? false, isCancelled: { ctx.isCancelled })
            return ["path": .string(path.string), "deleted": true]
        })
        methods.append(method("moveFile", claims: write("from", "to")) { ws, p, _ in
            let from = try p.path("from")
            let s = try ws.move(from: from, to: try p.path("to"), overwrite: try p.bool("overwrite") ?? false)
            return moved(from, s)
        })
        methods.append(method("copyFile", claims: { p in [.read("file", try p.path("from").string), .write("file", try p.path("to").string)] }) {
            ws, p, ctx in
            let from = try p.path("from")
            let r = try ws.copy(from: from, to: try p.path("to"), overwrite: try p.bool("overwrite") ?? false,
                                isCancelled: { ctx.isCancelled })
            return copied(from, r)
        })
        methods.append(method("createFolder", claims: write("path")) { ws, p, _ in
            let s = try ws.createFolder(try p.path("path"))
            return ["path": .string(s.path.string), "type": "directory", "modified": .string(s.modified)]
        })
        methods.append(method("searchFiles", claims: read("path", default: "")) { ws, p, ctx in try search(ws, p, ctx) })
        methods.append(Method("watchFiles") { ctx in
            let server = try LifecycleMethods.server(ctx)
            let p = try ctx.paramsObject()
            let glob = try p.string("glob").map { g throws(WorkspaceError) in try Glob(g) }
            try server.changes.watch(try server.workspace(), glob: glob, connection: ctx.serving)
            return ["watching": true]
        })
        methods.append(Method("unwatchFiles") { ctx in
            try LifecycleMethods.server(ctx).changes.unwatch()
            return ["watching": false]
        })
        methods.append(method("getFileUri", claims: { _ in [] }) { ws, p, _ in
            ["uri": .string(try ws.fileURI(try p.path("path")))]
        })
        methods.append(method("importFile", claims: write("path")) { ws, p, ctx in
            try ws.importFile(source: try p.requiredString("source"), to: try p.path("path"),
                              overwrite: try p.bool("overwrite") ?? false, isCancelled: { ctx.isCancelled }).writeResult
        })
        methods.append(method("exportFile", claims: read("path")) { ws, p, ctx in
            let path = try p.path("path")
            let destination = try p.requiredString("destination")
            let size = try ws.exportFile(path, destination: destination, overwrite: try p.bool("overwrite") ?? false,
                                         isCancelled: { ctx.isCancelled })
            return ["path": .string(path.string), "destination": .string(destination), "size": .int(size)]
        })
    }

    /// `getFileInfo`'s result (and the `get_file_info` tool's).
    static func info(_ s: FileStatus, sha256: String?) -> JSON {
        var o: JSONObject = ["path": .string(s.path.string), "name": .string(s.path.name), "type": .string(s.type.rawValue),
                             "size": .int(s.size)]
        if let c = s.created { o["created"] = .string(c) }
        o["modified"] = .string(s.modified)
        o["etag"] = .string(s.etag)
        o["mode"] = .string(s.modeString)
        o["state"] = .string(s.state)
        if let sha256 { o["sha256"] = .string(sha256) }
        return .object(o)
    }

    static func moved(_ from: WorkspacePath, _ s: FileStatus) -> JSON {
        ["from": .string(from.string), "to": .string(s.path.string), "type": .string(s.type.rawValue), "size": .int(s.size),
         "etag": .string(s.etag), "modified": .string(s.modified)]
    }

    /// A copy's result: `moved` plus every entry of a copied folder that was left out.
    static func copied(_ from: WorkspacePath, _ r: Workspace.CopyResult) -> JSON {
        guard case .object(var o) = moved(from, r.status) else { return moved(from, r.status) }
        o["skippedEntries"] = skipped(r.skipped)
        return .object(o)
    }

    /// `skipped` entries as the schema's `SkippedEntry`: path, type and the code reading it would answer.
    static func skipped(_ entries: [SkippedEntry]) -> JSON {
        .array(entries.map { ["path": .string($0.path.string), "type": .string($0.type.rawValue), "reason": .string($0.reason.rawValue)] })
    }

    static func load(_ ws: Workspace, _ p: Params, _ ctx: RequestContext? = nil) throws -> JSON {
        let encoding = try p.encoding()
        let path = try p.path("path")
        let r: Workspace.ReadResult
        do {
            r = try ws.read(path, offset: try p.nonNegative("offset") ?? 0, length: try p.nonNegative("length"),
                            maxBytes: maxReadBytes)
        } catch let e as WorkspaceError where e.code == .notDownloaded {
            // Ask the engine for it (iCloud on Apple systems); the client retries after retryAfterMs.
            ICloudContainer.startDownloading(ws.rootPath + "/" + path.string)
            throw e
        }
        let data: String
        let length: Int
        switch encoding {
        case .base64:
            data = Base64.encode(r.bytes)
            length = r.bytes.count
        case .utf8:
            // A range may end inside a character (not at the end of the file): that character is left out.
            guard let text = r.bytes.withUnsafeBytes({ UTF8Text.text($0, allowTruncatedEnd: !r.eof) }) else {
                throw WorkspaceError(.notText, "'\(r.status.path)' is not UTF-8 text in this range: load it with encoding \"base64\"",
                                     path: r.status.path.string)
            }
            (data, length) = text
        }
        return ["path": .string(r.status.path.string), "data": .string(data), "encoding": .string(encoding.rawValue),
                "size": .int(r.status.size), "etag": .string(r.status.etag), "modified": .string(r.status.modified),
                "offset": .int(r.offset), "length": .int(Int64(length)),
                "eof": .bool(r.offset + Int64(length) >= r.status.size)]
    }

    static func list(_ ws: Workspace, _ p: Params, _ ctx: RequestContext?) throws -> JSON {
        listResult(try listPage(ws, p, ctx))
    }

    /// A `listFiles` result: `{entries, nextCursor?}`.
    static func listResult(_ page: Workspace.ListPage) -> JSON {
        var result: JSONObject = ["entries": .array(page.entries.map(\.entry))]
        if let next = page.next { result["nextCursor"] = .string(ListCursor.encode(next)) }
        return .object(result)
    }

    /// The page a `listFiles` request asks for.
    static func listPage(_ ws: Workspace, _ p: Params, _ ctx: RequestContext?) throws -> Workspace.ListPage {
        var o = Workspace.ListOptions()
        o.path = try p.path("path", default: "")
        o.recursive = try p.bool("recursive") ?? false
        o.maxDepth = try p.int("maxDepth", in: 1...256).map(Int.init)
        o.glob = try p.string("glob").map { g throws(WorkspaceError) in try Glob(g) }
        o.includeHidden = try p.bool("includeHidden") ?? false
        o.limit = Int(try p.int("limit", in: 1...10_000) ?? 1000)
        if let cursor = try p.string("cursor") {
            guard let after = ListCursor.decode(cursor) else {
                throw RPCError.invalidParams(field: p.field("cursor"), expected: "a nextCursor from an earlier listFiles", got: "unknown cursor")
            }
            o.after = after
        }
        return try ws.list(o, isCancelled: { ctx?.isCancelled ?? false })
    }

    static func search(_ ws: Workspace, _ p: Params, _ ctx: RequestContext?) throws -> JSON {
        var o = Workspace.SearchOptions(query: try p.requiredString("query"))
        o.path = try p.path("path", default: "")
        o.glob = try p.string("glob").map { g throws(WorkspaceError) in try Glob(g) }
        o.regex = try p.bool("regex") ?? false
        o.caseSensitive = try p.bool("caseSensitive") ?? false
        o.includeHidden = try p.bool("includeHidden") ?? false
        o.maxResults = Int(try p.int("maxResults", in: 1...100_000) ?? 1000)
        ctx?.progress?.begin(title: "Searching", message: "“\(o.query)”")
        let r = try ws.search(o, isCancelled: { ctx?.isCancelled ?? false }) { files in
            ctx?.progress?.report(message: "\(files) files searched")
        }
        ctx?.progress?.end(message: "\(r.matches.count) matches in \(r.filesSearched) files")
        return ["matches": .array(r.matches.map { m in
                    ["path": .string(m.path.string), "line": .int(Int64(m.line)), "column": .int(Int64(m.column)),
                     "text": .string(m.text)]
                }),
                "truncated": .bool(r.truncated), "filesSearched": .int(Int64(r.filesSearched)),
                "specialFilesSkipped": .int(Int64(r.specialFilesSkipped))]
    }
}

/// `listFiles` cursors: the last path of the previous page, base64-wrapped so clients treat
/// them as opaque.
enum ListCursor {
    static func encode(_ p: WorkspacePath) -> String { "c1." + Base64.encode(Array(p.string.utf8)) }

    static func decode(_ s: String) -> WorkspacePath? {
        guard s.hasPrefix("c1."), let bytes = Base64.decode(String(s.dropFirst(3))) else { return nil }
        return try? WorkspacePath(String(decoding: bytes, as: UTF8.self))
    }
}
