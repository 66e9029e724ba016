import AgentSessions
import JSON
import JSONRPC
import Workspace

/// `workspace/textDocumentContent` (LSP 3.18): the text of a `wsb:` document (`ContentDocument`)
/// for any 3.18 editor, read-only. A client that declared `workspace.textDocumentContent` is
/// sent `workspace/textDocumentContent/refresh {uri}` when a document it read changes
/// (`ContentRefresh`).
enum TextDocumentContent: MethodDeclaration {
    static let method = "workspace/textDocumentContent"
    static let reaches: Set<Capability> = [.workspace]
    /// The largest text answered: a file or export larger is `TooLarge`; a transcript larger is
    /// cut at a message boundary and says so (page the rest with `session/messages`).
    static let maxBytes = FileMethods.maxReadBytes

    struct Params: MethodParams {
        var uri: String
        var document: ContentDocument
        init(_ p: ParamReader) throws {
            uri = try p.requiredString("uri")
            document = p.isDescribing ? .transcript(session: "") : try ContentDocument(uri: uri)
        }
    }

    static func schedule(_ p: Params) -> Schedule { .claims(p.document.claims) }

    /// `{text}`: the document's whole text.
    struct Result: ObjectResult {
        var text: String
        static let fields: [ResultField<Self>] = [.field("text", \.text)]
    }

    static func handle(_ p: Params, _ call: Call) throws -> Result {
        let services = call.services
        let text: String
        switch p.document {
        case .file(let path, let etag):
            text = try fileText(services.workspace(), path, etag: etag)
        case .conflict(let copy, let original):
            let ws = try services.workspace()
            _ = try ws.status(original)   // beside its original: a copy whose original is gone is NotFound
            text = try fileText(ws, copy, etag: nil)
        case .transcript(let id):
            let (store, _) = try services.stores()
            text = try ContentTranscript.markdown(store, id: id, maxBytes: Int(maxBytes))
        case .export(let id):
            let (store, _) = try services.stores()
            let bytes = try store.export(id: id).bytes
            guard bytes.count <= maxBytes else {
                throw WorkspaceError(.tooLarge, "the export of session \(id) has \(bytes.count) bytes, more than \(maxBytes): write it with session/export",
                                     details: ["size": .int(Int64(bytes.count)), "limit": .int(maxBytes)])
            }
            text = String(decoding: bytes, as: UTF8.self)
        }
        do {
            try services.contentRefresh.opened(p.uri, p.document, services: services, connection: call.connection())
        } catch {
            // The text is read: answer it; only its refresh is lost (e.g. no thread for a watcher).
            call.logger.warning("\(p.uri) will not be refreshed: \(services.mapError(error).message)")
        }
        return Result(text: text)
    }

    /// A file's whole text, at `etag` when one is given; bytes that are not UTF-8 are `NotText`.
    static func fileText(_ ws: Workspace, _ path: WorkspacePath, etag: String?) throws -> String {
        let r = try ws.read(path, maxBytes: maxBytes)
        if let etag, r.status.etag != etag {
            throw WorkspaceError(.preconditionFailed, "'\(path)' is no longer at etag \(etag) (the store keeps no versions): open wsb:/file/\(path) for its current text",
                                 path: path.string, details: ["currentEtag": .string(r.status.etag)])
        }
        guard let text = r.bytes.withUnsafeBytes({ UTF8Text.text($0, allowTruncatedEnd: false) })?.0 else {
            throw WorkspaceError(.notText, "'\(path)' is not UTF-8 text: read it with loadFile and encoding \"base64\"", path: path.string)
        }
        return text
    }
}

/// A session's transcript as Markdown: its title, then each message (role, time, content; a
/// compacted run as its summary; tool calls as JSON), in append order.
enum ContentTranscript {
    static func markdown(_ store: SessionStore, id: String, maxBytes: Int) throws -> String {
        let session = try store.get(id: id)
        var out = "# \(session.title.isEmpty ? id : session.title)\n\nSession `\(id)`, \(session.state.rawValue).\n"
        var after: String?
        var shown = 0
        while true {
            let page = try store.messages(id: id, after: after, limit: 1000)
            for m in page {
                let entry = section(m)
                if out.utf8.count + entry.utf8.count > maxBytes {
                    out += "\n_… cut at \(shown) messages (\(maxBytes) bytes): read the rest with session/messages after \(after ?? "the start")._\n"
                    return out
                }
                out += entry
                shown += 1
                after = m.id
            }
            if page.count < 1000 { return out }
        }
    }

    static func section(_ m: Message) -> String {
        var s = "\n## \(m.role.rawValue) · \(m.at)\(m.compaction != nil ? " · summary of a compacted run" : "")\n\n"
        if case .string(let text) = m.content { s += text } else { s += "```json\n" + JSONCodec.encodeString(m.content) + "\n```" }
        s += "\n"
        if let calls = m.toolCalls { s += "\nTool calls:\n\n```json\n" + JSONCodec.encodeString(calls) + "\n```\n" }
        if let callID = m.toolCallId { s += "\n_Result of tool call `\(callID)`._\n" }
        return s
    }
}
