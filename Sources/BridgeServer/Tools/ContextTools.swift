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
    static let contextPath = try! WorkspacePath("context.md")

    static let all: [Tool] = [
        Tool(name: "read_context", title: "Read the accumulated context",
             description: "Reads context.md: what the agent has learned about this workspace and its user.",
             readOnly: true, destructive: false, idempotent: true) { c in
            do {
                let r = try c.workspace.read(contextPath, maxBytes: FileMethods.maxReadBytes)
                let text = String(decoding: r.bytes, as: UTF8.self)
                return ToolOutput(text: text, structured: ["content": .string(text), "etag": .string(r.status.etag)])
            } catch let e as WorkspaceError where e.code == .notFound {
                return ToolOutput(text: "", structured: ["content": ""])
            }
        },
        Tool(name: "update_context", title: "Update the accumulated context",
             description: "Appends to context.md (mode append, the default) or replaces it (mode replace; pass ifMatch from read_context to avoid losing a concurrent edit).",
             readOnly: false, destructive: false, idempotent: false) { c in
            var text = try c.arguments.requiredString("content")
            let s: FileStatus
            if try c.arguments.choice("mode", ["append", "replace"]) == "replace" {
                s = try c.workspace.save(contextPath, contents: Array(text.utf8), options: .init(ifMatch: try c.arguments.string("ifMatch")))
            } else {
                if !text.hasSuffix("\n") { text += "\n" }
                s = try c.workspace.append(contextPath, contents: Array(text.utf8))
            }
            return ToolOutput(text: "context.md now has \(s.size) bytes.", structured: s.writeResult)
        },
        Tool(name: "append_journal", title: "Write in the agent's journal",
             description: "Appends an observation to today's agent journal, Journal/agent/<YYYY-MM-DD>.md (or the given date's).",
             readOnly: false, destructive: false, idempotent: false) { c in
            let date = try c.arguments.string("date") ?? today()
            guard date.utf8.count == 10, date.allSatisfy({ $0.isNumber || $0 == "-" }) else {
                throw WorkspaceError(.invalidArgument, "date must look like 2026-01-15")
            }
            var entry = try c.arguments.requiredString("entry")
            if !entry.hasSuffix("\n") { entry += "\n" }
            let s = try c.workspace.append(try WorkspacePath("Journal/agent/\(date).md"), contents: Array(("- " + entry).utf8))
            return ToolOutput(text: "Noted in \(s.path).", structured: s.writeResult)
        },
    ]

    static func today() -> String {
        var t = time(nil)
        var tm = tm()
        gmtime_r(&t, &tm)
        func pad(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(tm.tm_year + 1900)-\(pad(tm.tm_mon + 1))-\(pad(tm.tm_mday))"
    }
}
