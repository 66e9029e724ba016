import JSON
import Workspace

/// `listFiles` entries as JSON, the same members in the same order as `FileStatus.entry`
/// (`path, name, type, size, modified, etag, state`), built with less work per entry.
///
/// Entries of a page come folder by folder, so the folder part of each path is joined once per
/// folder and each entry's path is that prefix plus its name (the same string as
/// `WorkspacePath.string`).
enum ListEntries {
    static func json(_ entries: ArraySlice<FileStatus>) -> [JSON] {
        var out: [JSON] = []
        out.reserveCapacity(entries.count)
        var folder: ArraySlice<String> = []
        var prefix = ""
        for s in entries {
            let components = s.path.components
            let parent = components.dropLast()
            if parent != folder {
                folder = parent
                prefix = parent.isEmpty ? "" : parent.joined(separator: "/") + "/"
            }
            let name = components.last ?? ""
            out.append(["path": .string(prefix + name), "name": .string(name), "type": .string(s.type.rawValue),
                        "size": .int(s.size), "modified": .string(s.modified), "etag": .string(s.etag),
                        "state": .string(s.state)])
        }
        return out
    }
}
