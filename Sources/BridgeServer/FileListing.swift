import JSON
import JSONRPC
import Workspace

enum ListFiles: MethodDeclaration {
    static let method = "listFiles"
    static let reaches: Set<Capability> = [.workspace]
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
    static func handle(_ p: Params, _ call: Call) throws -> Listing {
        Listing(try call.services.workspace().list(p.options, isCancelled: { call.isCancelled }))
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
    static let reaches: Set<Capability> = [.workspace]
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
    static func handle(_ p: Params, _ call: Call) throws -> SearchResult {
        let o = p.options
        call.progress?.begin(title: "Searching", message: "“\(o.query)”")
        let r = try call.services.workspace().search(o, isCancelled: { call.isCancelled }) { files in
            call.progress?.report(message: "\(files) files searched")
        }
        call.progress?.end(message: "\(r.matches.count) matches in \(r.filesSearched) files")
        call.logger.debug("search for \(o.query.debugDescription) in '\(o.path.string)': \(r.matches.count) matches in \(r.filesSearched) files\(r.truncated ? " (truncated)" : "")")
        return SearchResult(matches: r.matches.map(SearchMatch.init), truncated: r.truncated, filesSearched: r.filesSearched,
                            specialFilesSkipped: r.specialFilesSkipped, ignored: r.ignored)
    }
}
