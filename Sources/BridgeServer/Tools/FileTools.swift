import JSON
import JSONRPC
import Workspace

/// Tools for every file method a user has (host-only methods with absolute paths excluded). Each
/// is its method (schema/openrpc.json `x-agent-tool`; `content` where the method takes `data`)
/// plus a sentence for the model, so an agent has exactly the user's powers and gets the user's
/// answers.
enum FileTools {
    static func encoded(_ json: JSON) -> String { JSONCodec.encodeString(json) }

    static func string(_ r: JSON, _ key: String) -> String { r[key]?.stringValue ?? "" }
    static func int(_ r: JSON, _ key: String) -> Int64 { r[key]?.intValue ?? 0 }

    /// `read_file`'s text: the data, then (when the file goes on) where to continue.
    static func readText(_ r: JSON) -> String {
        let data = string(r, "data")
        guard r["eof"]?.boolValue == false else { return data }
        let next = r["nextLine"]?.intValue.map { "startLine \($0)" } ?? "offset \(int(r, "nextOffset"))"
        let sep = data.isEmpty || data.hasSuffix("\n") ? "" : "\n"
        return data + sep + "[\(string(r, "path")) goes on (\(int(r, "size")) bytes): read from \(next) for more]"
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
                   effects: .when("exclusive", is: true, then: .adds, otherwise: .replaces), idempotent: true) { r in "Wrote \(int(r, "size")) bytes to \(string(r, "path"))." },
        .mirroring(AppendFile.self, as: "append_file", title: "Append to a file",
                   description: "Appends content to a file (created if missing, with its folders unless createParents is false), atomically.",
                   effects: .adds, idempotent: false) { r in
            "Appended; \(string(r, "path")) now has \(int(r, "size")) bytes."
        },
        .mirroring(ListFiles.self, as: "list_files", title: "List files",
                   description: "Lists a folder (recursive optional, down to maxDepth; glob filter; dot entries with includeHidden; paginated with cursor).",
                   effects: .reads, idempotent: true) { r in
            let lines = (r["entries"]?.arrayValue ?? []).map { e in
                let type = string(e, "type")
                let note = type == "file" ? " (\(int(e, "size")) bytes)" : type == "directory" ? "" : " (\(type), not readable)"
                return "\(type == "directory" ? "d" : "-") \(string(e, "path"))\(note)"
            }
            return lines.isEmpty ? "(empty)" : lines.joined(separator: "\n")
        },
        .mirroring(DeleteFile.self, as: "delete_file", title: "Delete a file or folder",
                   description: "Deletes a file, or a folder (recursive needed when it is not empty).",
                   effects: .replaces, idempotent: true) { r in "Deleted \(string(r, "path"))." },
        // A repeat finds `from` gone (NotFound) and changes nothing more: idempotent in MCP's sense.
        // Every move replaces: `from` no longer holds what it held (and `to` is replaced with overwrite).
        .mirroring(MoveFile.self, as: "move_file", title: "Move or rename",
                   description: "Moves or renames a file or folder; refuses to replace an existing target unless overwrite.",
                   effects: .replaces, idempotent: true) { r in "Moved \(string(r, "from")) to \(string(r, "to"))." },
        .mirroring(CopyFile.self, as: "copy_file", title: "Copy",
                   description: "Copies a file or folder; refuses to replace an existing target unless overwrite. FIFOs, sockets, devices and links inside a folder are not copied and are listed in skipped.",
                   effects: .when("overwrite", is: true, then: .replaces, otherwise: .adds), idempotent: true) { r in
            let skipped = (r["skippedEntries"]?.arrayValue ?? []).map { "\(string($0, "path")) (\(string($0, "type")))" }
            let left = skipped.isEmpty ? "" : " Skipped (not copied): " + skipped.joined(separator: ", ") + "."
            return "Copied \(string(r, "from")) to \(string(r, "to")).\(left)"
        },
        .mirroring(CreateFolder.self, as: "create_folder", title: "Create a folder",
                   description: "Creates a folder and any missing parents.",
                   effects: .adds, idempotent: true) { r in "Created \(string(r, "path"))/." },
        .mirroring(GetFileInfo.self, as: "get_file_info", title: "File information",
                   description: "Size, times, etag, permission bits, state (current, notDownloaded, conflicted) and, with hash \"sha256\", the SHA-256 of a file's content.",
                   effects: .reads, idempotent: true) { r in encoded(r) },
        .mirroring(SearchFiles.self, as: "search_files", title: "Search file contents",
                   description: "Finds lines containing a text (or a regular expression) in the workspace's files.",
                   effects: .reads, idempotent: true) { r in
            let lines = (r["matches"]?.arrayValue ?? []).map { m in
                "\(string(m, "path")):\(int(m, "line")): \(string(m, "text"))"
            }
            return lines.isEmpty ? "No matches." : lines.joined(separator: "\n")
        },
        .mirroring(GetStorageInfo.self, as: "get_storage_info", title: "Storage information",
                   description: "Where the workspace lives (local or cloud), whether the cloud is available, usage and free space.",
                   effects: .reads, idempotent: true) { r in encoded(r) },
    ]
}
