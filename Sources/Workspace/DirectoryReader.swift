#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SystemSupport

/// Reads the names in an open directory (never `.` or `..`) as their texts (`EscapedName`:
/// bytes that are not UTF-8 escaped, so every entry is listed and reachable), sorted as bytes
/// of those texts.
///
/// The names are gathered into one byte buffer and sorted there with `memcmp` (shorter name
/// first on a common prefix: the same order as comparing their UTF-8 bytes), so the sort makes
/// no `String` comparisons; each name becomes a `String` once, in sorted order.
enum DirectoryReader {
    /// Calls `body` with a function returning the directory's next entry (nil at the end),
    /// read from the start through a duplicate of `dir` (which is left where it was).
    private static func reading<T>(_ dir: FileDescriptor, path: WorkspacePath,
                                   _ body: (() -> UnsafeMutablePointer<dirent>?) -> T) throws(WorkspaceError) -> T {
        let copy = dup(dir.raw)
        guard copy >= 0, let stream = fdopendir(copy) else {
            if copy >= 0 { close(copy) }
            throw .errno(errno, "list", path: path.string)
        }
        defer { closedir(stream) }
        rewinddir(stream)
        return body { readdir(stream) }
    }

    static func names(_ dir: FileDescriptor, path: WorkspacePath) throws(WorkspaceError) -> [String] {
        try reading(dir, path: path) { next in sortedNames(next) }
    }

    private static func sortedNames(_ next: () -> UnsafeMutablePointer<dirent>?) -> [String] {
        var bytes: [UInt8] = []
        var spans: [(start: Int32, count: Int32)] = []
        bytes.reserveCapacity(4096)
        while let entry = next() {
            withUnsafePointer(to: &entry.pointee.d_name) { p in
                p.withMemoryRebound(to: UInt8.self, capacity: 256) { c in
                    let n = strlen(UnsafeRawPointer(c).assumingMemoryBound(to: CChar.self))
                    if n == 1 && c[0] == 46 { return }
                    if n == 2 && c[0] == 46 && c[1] == 46 { return }
                    spans.append((Int32(bytes.count), Int32(n)))
                    bytes.append(contentsOf: UnsafeBufferPointer(start: c, count: n))
                }
            }
        }
        return bytes.withUnsafeBufferPointer { buf -> [String] in
            guard let base = buf.baseAddress else { return [] }
            spans.sort { a, b in
                let r = memcmp(base + Int(a.start), base + Int(b.start), Int(min(a.count, b.count)))
                return r != 0 ? r < 0 : a.count < b.count
            }
            var escaped = false
            let names = spans.map { s in
                let raw = UnsafeBufferPointer(start: base + Int(s.start), count: Int(s.count))
                let name = EscapedName.text(raw)
                if name.utf8.count != raw.count { escaped = true }
                return name
            }
            // An escaped name (`caf\xe9`) may sort elsewhere than its bytes did.
            return escaped ? names.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) } : names
        }
    }

    /// The names in an open directory with their entry types (`DT_DIR`, `DT_REG`, `DT_LNK`,
    /// … or `DT_UNKNOWN` where the file system does not say), in directory order.
    static func typedNames(_ dir: FileDescriptor, path: WorkspacePath) throws(WorkspaceError) -> [(String, UInt8)] {
        try reading(dir, path: path) { next in
            var out: [(String, UInt8)] = []
            while let entry = next() {
                let type = entry.pointee.d_type
                let name = withUnsafePointer(to: &entry.pointee.d_name) { p in
                    p.withMemoryRebound(to: CChar.self, capacity: 256) { EscapedName.text(cString: $0) }
                }
                if name == "." || name == ".." { continue }
                out.append((name, type))
            }
            return out
        }
    }
}
