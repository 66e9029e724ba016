#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Synchronization
import SystemSupport

/// The temp files this process's crash-safe writes (`Workspace.replace`: saves, file copies, a
/// new root's layout; `exportFile`) have created and not yet renamed or removed.
///
/// Guarantee: once `removeAll` has run (the process is ending, see `workspace-bridge`'s
/// `ServerMain`), no write creates a temp file any more (it fails before touching the folder),
/// and every temp file of a write cut off by the end is removed, not left in the workspace: a
/// write abandoned by the exit happened wholly (renamed before) or left nothing. The one file it
/// cannot vouch for is one whose folder hangs (a dead mount): that removal is waited for only
/// briefly, and the file, named after this process, is swept by the next server.
public enum LiveTempFiles {
    private struct Entry: Sendable {
        let dir: FileDescriptor
        let name: String
    }

    private struct State {
        var ending = false
        var next: UInt64 = 0
        var live: [UInt64: Entry] = [:]
    }

    private static let state = Mutex(State())

    /// A temp file created by `create`: its name in its folder and its open descriptor.
    struct Handle {
        let token: UInt64
        let name: String
        let file: FileDescriptor
    }

    /// Creates a temp file for `name` in `dir` (`O_CREAT | O_EXCL` plus `flags`), registered
    /// until `forget`. Throws `RequestCancelled` without creating anything once the process is
    /// ending.
    static func create(in dir: FileDescriptor, for name: String, flags: Int32, mode: mode_t, path: String)
        throws(WorkspaceError) -> Handle
    {
        let tmp = TempName.make(for: name)
        let token = state.withLock { s -> UInt64? in
            guard !s.ending else { return nil }
            s.next += 1
            s.live[s.next] = Entry(dir: dir, name: tmp)
            return s.next
        }
        guard let token else { throw ending(path) }
        let raw = openat(dir.raw, tmp.onDisk, flags | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard raw >= 0 else {
            let e = errno
            forget(token)
            throw .errno(e, "create a temp file for", path: path)
        }
        let file = FileDescriptor(raw)
        // The end came while the file was being created: `removeAll` may have missed it.
        if state.withLock({ $0.ending }) {
            unlinkat(dir.raw, tmp.onDisk, 0)
            throw ending(path)
        }
        return Handle(token: token, name: tmp, file: file)
    }

    /// The temp file was renamed into place or removed by its writer.
    static func forget(_ token: UInt64) {
        _ = state.withLock { $0.live.removeValue(forKey: token) }
    }

    /// At the process's end: no temp file is created from now on, and the ones still there
    /// (writes cut off by the end) are removed, on a thread of their own, waited for at most
    /// `patience` (a folder on a hung mount must not hold the exit up). Returns whether every
    /// removal was done within it.
    @discardableResult
    public static func removeAll(patience: Duration = .milliseconds(500)) -> Bool {
        let entries = state.withLock { s -> [Entry] in
            s.ending = true
            defer { s.live = [:] }
            return Array(s.live.values)
        }
        guard !entries.isEmpty else { return true }
        let done = DispatchSemaphore(value: 0)
        do {
            try OSThread.detach {
                for e in entries { unlinkat(e.dir.raw, e.name.onDisk, 0) }
                done.signal()
            }
        } catch {
            return false
        }
        return done.wait(timeout: .now() + .nanoseconds(Int(clamping: patience.clampedNanoseconds))) == .success
    }

    private static func ending(_ path: String) -> WorkspaceError {
        WorkspaceError(.cancelled, "not started: the server is ending", path: path)
    }
}
