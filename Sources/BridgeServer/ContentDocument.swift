import JSONRPC
import Workspace

/// A read-only document of the `wsb:` scheme, served by `workspace/textDocumentContent` (LSP
/// 3.18) to any editor without a plugin. What a URI may name, and nothing else:
///
/// - `wsb:/file/PATH` — a workspace file's text; `wsb:/file/PATH?etag=E` the same, checked to be
///   at etag `E` (the store keeps no versions: another etag is `PreconditionFailed` with
///   `data.currentEtag`, never other bytes under that name);
/// - `wsb:/conflict/PATH` — a sync engine's conflict copy (Syncthing, Nextcloud, Dropbox, Unison,
///   rclone names), beside its original in the same folder, which it names;
/// - `wsb:/session/ID` — a session's transcript (Markdown);
/// - `wsb:/export/ID` — a session's export, the bytes `session/export` would write.
///
/// The path is percent-decoded (`URIText`) and checked as every client path is
/// (`WorkspacePath`): a URI never reaches outside the workspace.
package enum ContentDocument: Sendable, Equatable {
    case file(WorkspacePath, etag: String?)
    case conflict(copy: WorkspacePath, original: WorkspacePath)
    case transcript(session: String)
    case export(session: String)

    package static let scheme = "wsb"
    static let kinds = ["file", "conflict", "session", "export"]

    init(uri: String) throws {
        func bad(_ why: String) -> RPCError {
            RPCError.invalidParams(field: "uri", expected: "a wsb: URI (\(why))", got: "\"\(uri.prefix(200))\"")
        }
        guard uri.hasPrefix(Self.scheme + ":") else { throw bad("its scheme is not wsb") }
        var rest = Substring(uri.dropFirst(Self.scheme.count + 1))
        var query: Substring?
        if let q = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: q)...]
            rest = rest[..<q]
        }
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        while rest.hasPrefix("/") { rest = rest.dropFirst() }
        guard let slash = rest.firstIndex(of: "/") else { throw bad("wsb:/KIND/NAME, KIND one of \(Self.kinds.joined(separator: ", "))") }
        let kind = String(rest[..<slash])
        guard let name = URIText.percentDecoded(String(rest[rest.index(after: slash)...])), !name.isEmpty else {
            throw bad("a name after wsb:/\(kind)/, percent-encoded")
        }
        // Editors encode a query's `=` too (VS Code writes `%3D`): decode before reading it.
        let etag = try query.map { q throws -> String in
            guard let text = URIText.percentDecoded(String(q)), text.hasPrefix("etag="), text.count > 5 else {
                throw bad("the only query is etag=ETAG")
            }
            return String(text.dropFirst(5))
        }
        switch kind {
        case "file":
            self = .file(try WorkspacePath(name), etag: etag)
        case "conflict":
            let copy = try WorkspacePath(name)
            guard case .conflictCopy(_, let original, _) = SyncArtefacts.classify(copy.name) else {
                throw WorkspaceError(.invalidArgument, "'\(copy)' is not a conflict copy's name (see listConflicts)", path: copy.string)
            }
            self = .conflict(copy: copy, original: copy.parent.appending(original))
        case "session", "export":
            guard !name.contains("/") else { throw bad("a session id") }
            self = kind == "session" ? .transcript(session: name) : .export(session: name)
        default:
            throw bad("KIND one of \(Self.kinds.joined(separator: ", "))")
        }
        if etag != nil, case .file = self {} else if etag != nil { throw bad("etag= is for wsb:/file/ only") }
    }

    /// What reading it claims: the file (or copy) read, or the session read.
    var claims: [Claim] {
        switch self {
        case .file(let path, _): [.read(path)]
        case .conflict(let copy, _): [.read(copy)]
        case .transcript(let id), .export(let id): [Claim("session", path: id, access: .read)]
        }
    }

    /// The session it shows, if any.
    var session: String? {
        switch self {
        case .transcript(let id), .export(let id): id
        case .file, .conflict: nil
        }
    }

    /// The workspace files whose change changes it.
    var files: [WorkspacePath] {
        switch self {
        case .file(let path, _): [path]
        case .conflict(let copy, _): [copy]
        case .transcript, .export: []
        }
    }
}
