#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// Temporary folders for the targets' fixtures, removed when the process exits normally
/// (libFuzzer exits through `exit` at the end of a timed run). Removal never follows links.
enum TempFolder {
    private static let made = Mutex<[String]>([])

    /// A new empty folder `<parent>/wb-fuzz-<label>-XXXXXX`.
    static func make(_ label: String, in parent: String = "/tmp") -> String {
        var template = Array("\(parent)/wb-fuzz-\(label)-XXXXXX".utf8CString)
        let ok = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) } != nil
        precondition(ok, "mkdtemp failed: errno \(errno)")
        let path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let first = made.withLock { list in
            list.append(path)
            return list.count == 1
        }
        if first { atexit { TempFolder.removeAll() } }
        return path
    }

    private static func removeAll() {
        for path in made.withLock({ $0 }) { removeTree(path) }
    }

    /// `rm -rf path`, removing links themselves rather than what they point to.
    static func removeTree(_ path: String) {
        var st = stat()
        guard lstat(path, &st) == 0 else { return }
        if st.st_mode & S_IFMT == S_IFDIR {
            for name in PathTree.names(path) { removeTree(path + "/" + name) }
            rmdir(path)
        } else {
            unlink(path)
        }
    }
}
