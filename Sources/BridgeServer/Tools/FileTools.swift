import JSON
import JSONRPC
import Workspace

/// Tools for every file method a user has (host-only methods with absolute paths excluded).
enum FileTools {
    /// Tools take `content` where the file API takes `data`; the rest of the params are the same.
    static func fileParams(_ c: ToolContext, renaming: [String: String] = ["content": "data"]) throws -> Params {
        var o = c.arguments.object
        for (from, to) in renaming { if let v = o[from] { o[from] = nil; o[to] = v } }
        return try Params(.object(o))
    }

    static func encoded(_ json: JSON) -> String { JSONCodec.encodeString(json) }

    static let all: [Tool] = [
        Tool(name: "read_file", title: "Read a file",
             description: "Reads a text file of the workspace (or a byte range of it: offset, length). Binary files need encoding \"base64\".",
             inputSchema: Schema.object([("path", Schema.path), ("offset", Schema.integer("Byte offset to start at.")),
                                         ("length", Schema.integer("Bytes to read (default: to the end).")),
                                         ("encoding", Schema.choice(["utf8", "base64"], "How to return the bytes."))], required: ["path"]),
             outputSchema: Schema.object([("path", Schema.string("")), ("data", Schema.string("")), ("encoding", Schema.string("")),
                                          ("size", Schema.integer("")), ("etag", Schema.string("")), ("modified", Schema.string("")),
                                          ("offset", Schema.integer("")), ("length", Schema.integer("")), ("eof", Schema.boolean(""))],
                                         required: ["path", "data", "size", "etag"]),
             readOnly: true, destructive: false, idempotent: true) { c in
            let r = try FileMethods.load(c.workspace, try fileParams(c), c.request)
            return ToolOutput(text: r["data"]?.stringValue ?? "", structured: r)
        },
        Tool(name: "write_file", title: "Write a file",
             description: "Creates or replaces a file with the given content, crash-safely. Pass ifMatch (an etag from read_file) to refuse overwriting a change made meanwhile.",
             inputSchema: Schema.object([("path", Schema.path), ("content", Schema.string("The new content.")),
                                         ("encoding", Schema.choice(["utf8", "base64"], "How content is encoded.")),
                                         ("ifMatch", Schema.string("Only replace if the file's etag is still this.")),
                                         ("createParents", Schema.boolean("Create missing folders (default true)."))],
                                        required: ["path", "content"]),
             outputSchema: Schema.write, readOnly: false, destructive: true, idempotent: true) { c in
            let p = try fileParams(c)
            let s = try c.workspace.save(try p.path("path"), contents: try p.payload(),
                                         options: .init(createParents: try p.bool("createParents") ?? true, ifMatch: try p.string("ifMatch")))
            return ToolOutput(text: "Wrote \(s.size) bytes to \(s.path).", structured: s.writeResult)
        },
        Tool(name: "append_file", title: "Append to a file",
             description: "Appends content to a file (created if missing), atomically.",
             inputSchema: Schema.object([("path", Schema.path), ("content", Schema.string("What to append.")),
                                         ("encoding", Schema.choice(["utf8", "base64"], "How content is encoded."))],
                                        required: ["path", "content"]),
             outputSchema: Schema.write, readOnly: false, destructive: false, idempotent: false) { c in
            let p = try fileParams(c)
            let s = try c.workspace.append(try p.path("path"), contents: try p.payload())
            return ToolOutput(text: "Appended; \(s.path) now has \(s.size) bytes.", structured: s.writeResult)
        },
        Tool(name: "list_files", title: "List files",
             description: "Lists a folder (recursive optional, glob filter, paginated with cursor).",
             inputSchema: Schema.object([("path", Schema.path), ("recursive", Schema.boolean("Include subfolders.")),
                                         ("glob", Schema.string("Filter like *.md or docs/**/*.txt.")),
                                         ("includeHidden", Schema.boolean("Include dot files.")),
                                         ("limit", Schema.integer("Entries per page (1-10000).", minimum: 1)),
                                         ("cursor", Schema.string("nextCursor of the previous page."))]),
             outputSchema: Schema.object([("entries", ["type": "array"]), ("nextCursor", Schema.string(""))], required: ["entries"]),
             readOnly: true, destructive: false, idempotent: true) { c in
            let r = try FileMethods.list(c.workspace, c.arguments, c.request)
            let lines = (r["entries"]?.arrayValue ?? []).map { e in
                "\(e["type"]?.stringValue == "directory" ? "d" : "-") \(e["path"]?.stringValue ?? "")\(e["type"]?.stringValue == "file" ? " (\(e["size"]?.intValue ?? 0) bytes)" : "")"
            }
            return ToolOutput(text: lines.isEmpty ? "(empty)" : lines.joined(separator: "\n"), structured: r)
        },
        Tool(name: "delete_file", title: "Delete a file or folder",
             description: "Deletes a file, or a folder (recursive needed when it is not empty).",
             inputSchema: Schema.object([("path", Schema.path), ("recursive", Schema.boolean("Delete a folder with its contents."))],
                                        required: ["path"]),
             outputSchema: Schema.object([("path", Schema.string("")), ("deleted", Schema.boolean(""))], required: ["path", "deleted"]),
             readOnly: false, destructive: true, idempotent: true) { c in
            let path = try c.arguments.path("path")
            try c.workspace.delete(path, recursive: try c.arguments.bool("recursive") ?? false)
            return ToolOutput(text: "Deleted \(path).", structured: ["path": .string(path.string), "deleted": true])
        },
        Tool(name: "move_file", title: "Move or rename",
             description: "Moves or renames a file or folder; refuses to replace an existing target unless overwrite.",
             inputSchema: Schema.object([("from", Schema.path), ("to", Schema.path), ("overwrite", Schema.boolean("Replace an existing target."))],
                                        required: ["from", "to"]),
             outputSchema: Schema.moved, readOnly: false, destructive: true, idempotent: false) { c in
            let from = try c.arguments.path("from")
            let s = try c.workspace.move(from: from, to: try c.arguments.path("to"), overwrite: try c.arguments.bool("overwrite") ?? false)
            return ToolOutput(text: "Moved \(from) to \(s.path).", structured: FileMethods.moved(from, s))
        },
        Tool(name: "copy_file", title: "Copy",
             description: "Copies a file or folder; refuses to replace an existing target unless overwrite.",
             inputSchema: Schema.object([("from", Schema.path), ("to", Schema.path), ("overwrite", Schema.boolean("Replace an existing target."))],
                                        required: ["from", "to"]),
             outputSchema: Schema.moved, readOnly: false, destructive: false, idempotent: true) { c in
            let from = try c.arguments.path("from")
            let s = try c.workspace.copy(from: from, to: try c.arguments.path("to"), overwrite: try c.arguments.bool("overwrite") ?? false)
            return ToolOutput(text: "Copied \(from) to \(s.path).", structured: FileMethods.moved(from, s))
        },
        Tool(name: "create_folder", title: "Create a folder",
             description: "Creates a folder and any missing parents.",
             inputSchema: Schema.object([("path", Schema.path)], required: ["path"]),
             outputSchema: Schema.object([("path", Schema.string("")), ("type", Schema.string("")), ("modified", Schema.string(""))],
                                         required: ["path"]),
             readOnly: false, destructive: false, idempotent: true) { c in
            let s = try c.workspace.createFolder(try c.arguments.path("path"))
            return ToolOutput(text: "Created \(s.path)/.", structured: ["path": .string(s.path.string), "type": "directory", "modified": .string(s.modified)])
        },
        Tool(name: "get_file_info", title: "File information",
             description: "Size, times, etag, state (current, notDownloaded, conflicted) and optionally the SHA-256 of a file or folder.",
             inputSchema: Schema.object([("path", Schema.path), ("sha256", Schema.boolean("Also hash the file."))], required: ["path"]),
             outputSchema: Schema.object([("path", Schema.string("")), ("type", Schema.string("")), ("size", Schema.integer("")),
                                          ("modified", Schema.string("")), ("etag", Schema.string("")), ("state", Schema.string("")), ("sha256", Schema.string(""))],
                                         required: ["path", "type", "size"]),
             readOnly: true, destructive: false, idempotent: true) { c in
            let (s, sha) = try c.workspace.info(try c.arguments.path("path"), sha256: try c.arguments.bool("sha256") ?? false)
            var o: JSONObject = ["path": .string(s.path.string), "type": .string(s.type.rawValue), "size": .int(s.size),
                                 "modified": .string(s.modified), "etag": .string(s.etag), "state": .string(s.state)]
            if let sha { o["sha256"] = .string(sha) }
            return ToolOutput(text: encoded(.object(o)), structured: .object(o))
        },
        Tool(name: "search_files", title: "Search file contents",
             description: "Finds lines containing a text (or a regular expression) in the workspace's files.",
             inputSchema: Schema.object([("query", Schema.string("The text or pattern to find.")), ("path", Schema.path),
                                         ("glob", Schema.string("Only files matching this glob.")),
                                         ("regex", Schema.boolean("Treat query as a regular expression.")),
                                         ("caseSensitive", Schema.boolean("Match case (default false).")),
                                         ("maxResults", Schema.integer("At most this many matches (default 1000).", minimum: 1))],
                                        required: ["query"]),
             outputSchema: Schema.object([("matches", ["type": "array"]), ("truncated", Schema.boolean("")),
                                          ("filesSearched", Schema.integer(""))], required: ["matches", "truncated"]),
             readOnly: true, destructive: false, idempotent: true) { c in
            let r = try FileMethods.search(c.workspace, c.arguments, c.request)
            let lines = (r["matches"]?.arrayValue ?? []).map { m in
                "\(m["path"]?.stringValue ?? ""):\(m["line"]?.intValue ?? 0): \(m["text"]?.stringValue ?? "")"
            }
            return ToolOutput(text: lines.isEmpty ? "No matches." : lines.joined(separator: "\n"), structured: r)
        },
        Tool(name: "get_storage_info", title: "Storage information",
             description: "Where the workspace lives (local or cloud), whether the cloud is available, usage and free space.",
             inputSchema: Schema.object([]),
             outputSchema: ["type": "object"],
             readOnly: true, destructive: false, idempotent: true) { c in
            let info = try c.server.storage().info().json
            return ToolOutput(text: encoded(info), structured: info)
        },
    ]
}
