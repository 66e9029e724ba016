import JSON
import JSONRPC
import Workspace

enum ListFiles: MethodDeclaration {
    static let method = "listFiles"
    static let result = ResultShape.object(["entries", "nextCursor"])
    struct Params: MethodParams {
        var options = Workspace.ListOptions()
        init(_ p: ParamReader) throws {
            options.path = try p.path("path", default: "")
            options.recursive = try p.bool("recursive") ?? false
            options.maxDepth = try p.int("maxDepth", in: 1...256).map(Int.init)
            options.glob = try p.glob()
            options.includeHidden = try p.bool("includeHidden") ?? false
            options.includeIgnored = try p.bool("includeIgnored") ?? false
            options.limit = Int(try p.int("limit", in: 1...10_000) ?? 1000)
            if let cursor = try p.string("cursor") {
                guard let after = ListCursor.decode(cursor) else {
                    throw RPCError.invalidParams(field: p.field("cursor"), expected: "a nextCursor from an earlier listFiles",
                                                 got: "unknown cursor")
                }
                options.after = after
            }
        }
    }
    static func schedule(_ p: Params) -> Schedule { .claims([.read(p.options.path)]) }
    static func handle(_ p: Params, _ call: Call) throws -> JSON {
        listResult(try call.services.workspace().list(p.options, isCancelled: { call.isCancelled }))
    }

    /// A `listFiles` result: `{entries, nextCursor?}`.
    static func listResult(_ page: Workspace.ListPage) -> JSON {
        var result: JSONObject = ["entries": .array(page.entries.map(\.entry))]
        if let next = page.next { result["nextCursor"] = .string(ListCursor.encode(next)) }
        return .object(result)
    }
}

/// `listFiles` cursors: the last path of the previous page, base64-wrapped so clients treat
/// them as opaque.
package enum ListCursor {
    package static func encode(_ p: WorkspacePath) -> String { "c1." + Base64.encode(Array(p.string.utf8)) }

    package static func decode(_ s: String) -> WorkspacePath? {
        guard s.hasPrefix("c1."), let bytes = Base64.decode(String(s.dropFirst(3))) else { return nil }
        return try? WorkspacePath(String(decoding: bytes, as: UTF8.self))
    }
}

enum SearchFiles: MethodDeclaration {
    static let method = "searchFiles"
    static let result = ResultShape.object(["matches", "truncated", "filesSearched", "specialFilesSkipped", "ignored"])
    struct Params: MethodParams {
        var options: Workspace.SearchOptions
        init(_ p: ParamReader) throws {
            options = Workspace.SearchOptions(query: try p.requiredString("query"))
            options.path = try p.path("path", default: "")
            options.glob = try p.glob()
            options.regex = try p.bool("regex") ?? false
            options.caseSensitive = try p.bool("caseSensitive") ?? false
            options.includeHidden = try p.bool("includeHidden") ?? false
            options.includeIgnored = try p.bool("includeIgnored") ?? false
            options.maxResults = Int(try p.int("maxResults", in: 1...100_000) ?? 1000)
        }
    }
    static func schedule(_ p: Params) -> Schedule { .claims([.read(p.options.path)]) }
    static func handle(_ p: Params, _ call: Call) throws -> JSON {
        let o = p.options
        call.progress?.begin(title: "Searching", message: "“\(o.query)”")
        let r = try call.services.workspace().search(o, isCancelled: { call.isCancelled }) { files in
            call.progress?.report(message: "\(files) files searched")
        }
        call.progress?.end(message: "\(r.matches.count) matches in \(r.filesSearched) files")
        call.logger.debug("search for \(o.query.debugDescription) in '\(o.path.string)': \(r.matches.count) matches in \(r.filesSearched) files\(r.truncated ? " (truncated)" : "")")
        return ["matches": .array(r.matches.map { m in
                    ["path": .string(m.path.string), "line": .int(Int64(m.line)), "column": .int(Int64(m.column)),
                     "text": .string(m.text)]
                }),
                "truncated": .bool(r.truncated), "filesSearched": .int(Int64(r.filesSearched)),
                "specialFilesSkipped": .int(Int64(r.specialFilesSkipped)), "ignored": .int(Int64(r.ignored))]
    }
}
