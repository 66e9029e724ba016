import JSON
import JSONRPC
import Workspace

/// Tools for every file method a user has (host-only methods with absolute paths excluded). Each
/// tool takes its method's params (schema/openrpc.json `x-agent-tool`; `content` where the method
/// takes `data`) and calls the same `Workspace` function with the same options, so an agent has
/// exactly the user's powers.
enum FileTools {
    static func encoded(_ json: JSON) -> String { JSONCodec.encodeString(json) }

    /// Whether the request running the tool was cancelled (never, outside a request).
    static func cancelled(_ c: ToolContext) -> () -> Bool { { c.request?.isCancelled ?? false } }

    static let all: [Tool] = [
        Tool(name: "read_file", title: "Read a file",
             description: "Reads a text file of the workspace (or a byte range of it: offset, length). Binary files need encoding \"base64\".",
             readOnly: true, destructive: false, idempotent: true) { c in
            let r = try FileMethods.load(c.workspace, c.arguments, c.request)
            return ToolOutput(text: r["data"]?.stringValue ?? "", structured: r)
        },
        Tool(name: "write_file", title: "Write a file",
             description: "Creates or replaces a file with the given content, crash-safely. Pass ifMatch (an etag from read_file) to refuse overwriting a change made meanwhile, or exclusive to refuse replacing an existing file.",
             readOnly: false, destructive: true, idempotent: true) { c in
            let p = c.arguments
            let options = Workspace.SaveOptions(createParents: try p.bool("createParents") ?? true,
                                                ifMatch: try p.string("ifMatch"), exclusive: try p.bool("exclusive") ?? false)
            let s = try c.workspace.save(try p.path("path"), contents: try p.payload(key: "content"), options: options)
            return ToolOutput(text: "Wrote \(s.size) bytes to \(s.path).", structured: s.writeResult)
        },
        Tool(name: "append_file", title: "Append to a file",
             description: "Appends content to a file (created if missing, with its folders unless createParents is false), atomically.",
             readOnly: false, destructive: false, idempotent: false) { c in
            let p = c.arguments
            let s = try c.workspace.append(try p.path("path"), contents: try p.payload(key: "content"),
                                           createParents: try p.bool("createParents") ?? true)
            return ToolOutput(text: "Appended; \(s.path) now has \(s.size) bytes.", structured: s.writeResult)
        },
        Tool(name: "list_files", title: "List files",
             description: "Lists a folder (recursive optional, down to maxDepth; glob filter; dot entries with includeHidden; paginated with cursor).",
             readOnly: true, destructive: false, idempotent: true) { c in
            let page = try FileMethods.listPage(c.workspace, c.arguments, c.request)
            let lines = page.entries.map { e in
                let note = e.type == .file ? " (\(e.size) bytes)" : e.type == .directory ? "" : " (\(e.type.rawValue), not readable)"
                return "\(e.type == .directory ? "d" : "-") \(e.path.string)\(note)"
            }
            return ToolOutput(text: lines.isEmpty ? "(empty)" : lines.joined(separator: "\n"), structured: FileMethods.listResult(page))
        },
        Tool(name: "delete_file", title: "Delete a file or folder",
             description: "Deletes a file, or a folder (recursive needed when it is not empty).",
             readOnly: false, destructive: true, idempotent: true) { c in
            let path = try c.arguments.path("path")
            try c.workspace.delete(path, recursive: try c.arguments.bool("recursive") ?? false, isCancelled: cancelled(c))
            return ToolOutput(text: "Deleted \(path).", structured: ["path": .string(path.string), "deleted": true])
        },
        Tool(name: "move_file", title: "Move or rename",
             description: "Moves or renames a file or folder; refuses to replace an existing target unless overwrite.",
             // A repeat finds `from` gone (NotFound) and changes nothing more: idempotent in MCP's sense.
             readOnly: false, destructive: true, idempotent: true) { c in
            let from = try c.arguments.path("from")
            let s = try c.workspace.move(from: from, to: try c.arguments.path("to"), overwrite: try c.arguments.bool("overwrite") ?? false)
            return ToolOutput(text: "Moved \(from) to \(s.path).", structured: FileMethods.moved(from, s))
        },
        Tool(name: "copy_file", title: "Copy",
             description: "Copies a file or folder; refuses to replace an existing target unless overwrite. FIFOs, sockets, devices and links inside a folder are not copied and are listed in skipped.",
             readOnly: false, destructive: false, idempotent: true) { c in
            let from = try c.arguments.path("from")
            let r = try c.workspace.copy(from: from, to: try c.arguments.path("to"), overwrite: try c.arguments.bool("overwrite") ?? false,
                                         isCancelled: cancelled(c))
            let left = r.skipped.isEmpty ? "" : " Skipped (not copied): " + r.skipped.map { "\($0.path) (\($0.type.rawValue))" }.joined(separator: ", ") + "."
            return ToolOutput(text: "Copied \(from) to \(r.status.path).\(left)", structured: FileMethods.copied(from, r))
        },
        Tool(name: "create_folder", title: "Create a folder",
             description: "Creates a folder and any missing parents.",
             readOnly: false, destructive: false, idempotent: true) { c in
            let s = try c.workspace.createFolder(try c.arguments.path("path"))
            return ToolOutput(text: "Created \(s.path)/.", structured: ["path": .string(s.path.string), "type": "directory", "modified": .string(s.modified)])
        },
        Tool(name: "get_file_info", title: "File information",
             description: "Size, times, etag, permission bits, state (current, notDownloaded, conflicted) and, with hash \"sha256\", the SHA-256 of a file's content.",
             readOnly: true, destructive: false, idempotent: true) { c in
            let hash = try c.arguments.choice("hash", ["sha256"])
            let (s, sha) = try c.workspace.info(try c.arguments.path("path"), sha256: hash != nil, isCancelled: cancelled(c))
            let o = FileMethods.info(s, sha256: sha)
            return ToolOutput(text: encoded(o), structured: o)
        },
        Tool(name: "search_files", title: "Search file contents",
             description: "Finds lines containing a text (or a regular expression) in the workspace's files.",
             readOnly: true, destructive: false, idempotent: true) { c in
            let r = try FileMethods.search(c.workspace, c.arguments, c.request)
            let lines = (r["matches"]?.arrayValue ?? []).map { m in
                "\(m["path"]?.stringValue ?? ""):\(m["line"]?.intValue ?? 0): \(m["text"]?.stringValue ?? "")"
            }
            return ToolOutput(text: lines.isEmpty ? "No matches." : lines.joined(separator: "\n"), structured: r)
        },
        Tool(name: "get_storage_info", title: "Storage information",
             description: "Where the workspace lives (local or cloud), whether the cloud is available, usage and free space.",
             readOnly: true, destructive: false, idempotent: true) { c in
            let info = try c.server.storage().info().json
            return ToolOutput(text: encoded(info), structured: info)
        },
    ]
}
