import JSON
import JSONRPC
import Workspace

/// Tools for every file method a user has (host-only methods with absolute paths excluded). Each
/// is its method (schema/openrpc.json `x-agent-tool`; `content` where the method takes `data`)
/// plus a sentence for the model, so an agent has exactly the user's powers and gets the user's
/// answers.
enum FileTools {
    /// `read_file`'s text: the data, then (when the file goes on) where to continue.
    static func readText(_ r: LoadResult) -> String {
        guard !r.eof else { return r.data }
        let next = r.nextLine.map { "startLine \($0)" } ?? "offset \(r.nextOffset ?? r.offset + r.length)"
        let sep = r.data.isEmpty || r.data.hasSuffix("\n") ? "" : "\n"
        return r.data + sep + "[\(r.path) goes on (\(r.size) bytes): read from \(next) for more]"
    }

    static let all: [Tool] = [
        .mirroring(LoadFile.self, as: "read_file", title: "Read a file",
                   description: "Reads a text file of the workspace, whole or a window: lines (startLine, 1-based, and maxLines; or tailLines for the end) or bytes (offset, length). At most 16 MiB a call. When the answer says eof is false, the file goes on: call again with startLine set to nextLine (or offset set to nextOffset) to read the next window. maxLines 0 reads no lines (only size and etag). A binary file is refused (NotText, reason binary): read it with encoding \"base64\".",
                   effects: .reads, idempotent: true) { r in readText(r) },
        .declared(ReadMultipleFiles.self, title: "Read several files",
                  description: "Reads several text files at once (at most 100, 16 MiB in all), each whole or only its first lines (head) or last lines (tail). Each file says whether it ended (eof); when not, read on with read_file from startLine nextLine (or offset nextOffset). head 0 or tail 0 reads no lines (only size and etag). A file that cannot be read (binary, missing, outside the roots) is reported in its own entry; the others are read.",
                  effects: .reads, idempotent: true),
        .mirroring(SaveFile.self, as: "write_file", title: "Write a file",
                   description: "Creates or replaces a file with the given content, crash-safely. Pass ifMatch (an etag from read_file) to refuse overwriting a change made meanwhile, or exclusive to refuse replacing an existing file.",
                   effects: .when("exclusive", is: true, then: .adds, otherwise: .replaces), idempotent: true) { r in "Wrote \(r.size) bytes to \(r.path)." },
        .mirroring(AppendFile.self, as: "append_file", title: "Append to a file",
                   description: "Appends content to a file (created if missing, with its folders unless createParents is false), atomically.",
                   effects: .adds, idempotent: false) { r in
            "Appended; \(r.path) now has \(r.size) bytes."
        },
        .mirroring(ListFiles.self, as: "list_files", title: "List files",
                   description: "Lists a folder (recursive optional, down to maxDepth; glob filter; dot entries with includeHidden; paginated with cursor).",
                   effects: .reads, idempotent: true) { r in
            let lines = r.entries.map { e in
                let type = e.status.type
                let note = type == .file ? " (\(e.status.size) bytes)" : type == .directory ? "" : " (\(type.rawValue), not readable)"
                return "\(type == .directory ? "d" : "-") \(e.status.path)\(note)"
            }
            return lines.isEmpty ? "(empty)" : lines.joined(separator: "\n")
        },
        .mirroring(DeleteFile.self, as: "delete_file", title: "Delete a file or folder",
                   description: "Deletes a file, or a folder (recursive needed when it is not empty).",
                   effects: .replaces, idempotent: true) { r in "Deleted \(r.path)." },
        // A repeat finds `from` gone (NotFound) and changes nothing more: idempotent in MCP's sense.
        // Every move replaces: `from` no longer holds what it held (and `to` is replaced with overwrite).
        .mirroring(MoveFile.self, as: "move_file", title: "Move or rename",
                   description: "Moves or renames a file or folder; refuses to replace an existing target unless overwrite.",
                   effects: .replaces, idempotent: true) { r in "Moved \(r.from) to \(r.status.path)." },
        .mirroring(CopyFile.self, as: "copy_file", title: "Copy",
                   description: "Copies a file or folder; refuses to replace an existing target unless overwrite. FIFOs, sockets, devices and links inside a folder are not copied and are listed in skipped.",
                   effects: .when("overwrite", is: true, then: .replaces, otherwise: .adds), idempotent: true) { r in
            let skipped = (r.skippedEntries ?? []).map { "\($0.entry.path) (\($0.entry.type.rawValue))" }
            let left = skipped.isEmpty ? "" : " Skipped (not copied): " + skipped.joined(separator: ", ") + "."
            return "Copied \(r.from) to \(r.status.path).\(left)"
        },
        .mirroring(CreateFolder.self, as: "create_folder", title: "Create a folder",
                   description: "Creates a folder and any missing parents.",
                   effects: .adds, idempotent: true) { r in "Created \(r.status.path)/." },
        .mirroring(GetFileInfo.self, as: "get_file_info", title: "File information",
                   description: "Size, times, etag, permission bits, state (current, notDownloaded, conflicted) and, with hash \"sha256\", the SHA-256 of a file's content.",
                   effects: .reads, idempotent: true) { r in JSONCodec.encodeString(r.json) },
        .mirroring(SearchFiles.self, as: "search_files", title: "Search file contents",
                   description: "Finds lines containing a text (or a regular expression) in the workspace's files.",
                   effects: .reads, idempotent: true) { r in
            let lines = r.matches.map { m in "\(m.match.path):\(m.match.line): \(m.match.text)" }
            return lines.isEmpty ? "No matches." : lines.joined(separator: "\n")
        },
        .mirroring(GetStorageInfo.self, as: "get_storage_info", title: "Storage information",
                   description: "Where the workspace lives (local or cloud), whether the cloud is available, usage and free space.",
                   effects: .reads, idempotent: true) { r in JSONCodec.encodeString(r.json) },
    ]
}
