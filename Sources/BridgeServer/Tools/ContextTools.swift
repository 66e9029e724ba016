#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import JSON
import JSONRPC
import Workspace

/// The seeds' agent habits as tools: the accumulated `context.md`, and a dated agent journal.
enum ContextTools {
    static let contextPath = WorkspacePath.root.appending("context.md")

    static let all: [Tool] = [
        .declared(ReadContext.self, title: "Read the accumulated context",
                  description: "Reads context.md: what the agent has learned about this workspace and its user.",
                  effects: .reads, idempotent: true),
        .declared(UpdateContext.self, title: "Update the accumulated context",
                  description: "Appends to context.md (mode append, the default) or replaces it (mode replace; pass ifMatch from read_context to avoid losing a concurrent edit).",
                  effects: .when("mode", is: "replace", then: .replaces, otherwise: .adds), idempotent: false),
        .declared(AppendJournal.self, title: "Write in the agent's journal",
                  description: "Appends an observation to today's agent journal, Journal/agent/<YYYY-MM-DD>.md (or the given date's).",
                  effects: .adds, idempotent: false),
    ]

    static func today() -> String {
        var t = time(nil)
        var tm = tm()
        gmtime_r(&t, &tm)
        func pad(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(tm.tm_year + 1900)-\(pad(tm.tm_mon + 1))-\(pad(tm.tm_mday))"
    }
}

enum ReadContext: ToolDeclaration {
    static let name = "read_context"
    static let reaches: Set<Capability> = [.workspace]
    static func schedule(_ p: NoParams) -> Schedule { .claims([.read(ContextTools.contextPath)]) }
    static func handle(_ p: NoParams, _ call: Call) throws -> ToolOutput {
        do {
            let r = try call.services.workspace().read(ContextTools.contextPath, maxBytes: FileMethods.maxReadBytes)
            let text = String(decoding: r.bytes, as: UTF8.self)
            return ToolOutput(text: text, structured: ["content": .string(text), "etag": .string(r.status.etag)])
        } catch let e as WorkspaceError where e.code == .notFound {
            return ToolOutput(text: "", structured: ["content": ""])
        }
    }
}

enum UpdateContext: ToolDeclaration {
    static let name = "update_context"
    static let reaches: Set<Capability> = [.workspace]
    struct Params: MethodParams {
        var content: String
        var replace: Bool
        var ifMatch: String?
        init(_ p: ParamReader) throws {
            content = try p.requiredString("content")
            replace = try p.choice("mode", ["append", "replace"]) == "replace"
            ifMatch = try p.string("ifMatch")
        }
    }
    static func schedule(_ p: Params) -> Schedule { .claims([.write(ContextTools.contextPath)]) }
    static func handle(_ p: Params, _ call: Call) throws -> ToolOutput {
        let ws = try call.services.workspace()
        var text = p.content
        let s: FileStatus
        if p.replace {
            s = try ws.save(ContextTools.contextPath, contents: Array(text.utf8), options: .init(ifMatch: p.ifMatch))
        } else {
            if !text.hasSuffix("\n") { text += "\n" }
            s = try ws.append(ContextTools.contextPath, contents: Array(text.utf8))
        }
        return ToolOutput(text: "context.md now has \(s.size) bytes.", structured: WriteResult(s).json)
    }
}

enum AppendJournal: ToolDeclaration {
    static let name = "append_journal"
    static let reaches: Set<Capability> = [.workspace]
    struct Params: MethodParams {
        var date: String?
        var entry: String
        init(_ p: ParamReader) throws {
            date = try p.string("date")
            entry = try p.requiredString("entry")
        }
    }
    /// Today's file is named when the call runs: the journal's folder.
    static func schedule(_ p: Params) -> Schedule { .claims([.write("file", "Journal/agent")]) }
    static func handle(_ p: Params, _ call: Call) throws -> ToolOutput {
        let date = p.date ?? ContextTools.today()
        guard date.utf8.count == 10, date.allSatisfy({ $0.isNumber || $0 == "-" }) else {
            throw WorkspaceError(.invalidArgument, "date must look like 2026-01-15")
        }
        var entry = p.entry
        if !entry.hasSuffix("\n") { entry += "\n" }
        let s = try call.services.workspace().append(try WorkspacePath("Journal/agent/\(date).md"), contents: Array(("- " + entry).utf8))
        return ToolOutput(text: "Noted in \(s.path).", structured: WriteResult(s).json)
    }
}
