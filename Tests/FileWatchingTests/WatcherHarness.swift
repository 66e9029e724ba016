#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
@testable import FileWatching
import Synchronization
import SystemSupport

/// A temporary directory (mkdtemp) removed with everything in it on `remove()`.
struct TempDir {
    let path: String

    init() {
        var template = Array("/tmp/fw-test-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "mkdtemp failed")
        path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    func at(_ relative: String) -> String { path + "/" + relative }
    func remove() { removeTree(path) }
}

/// Collects what a watcher reports, from any thread.
final class Collector: Sendable {
    private struct State {
        var batches: [[FileChange]] = []
        var overflows = 0
        var callbackThreads: Set<UInt> = []
    }
    private let state = Mutex(State())

    func onChanges(_ batch: [FileChange]) {
        let thread = currentThreadID()
        state.withLock { $0.batches.append(batch); $0.callbackThreads.insert(thread) }
    }
    func onOverflow() { state.withLock { $0.overflows += 1 } }

    var batches: [[FileChange]] { state.withLock { $0.batches } }
    var changes: [FileChange] { batches.flatMap { $0 } }
    var overflows: Int { state.withLock { $0.overflows } }
    var callbackThreads: Set<UInt> { state.withLock { $0.callbackThreads } }

    /// Waits up to `milliseconds` for `condition` over all changes so far.
    @discardableResult
    func wait(milliseconds: Int = 10_000, until condition: ([FileChange]) -> Bool) -> Bool {
        let deadline = MonotonicClock.nanos() + UInt64(milliseconds) * 1_000_000
        while MonotonicClock.nanos() < deadline {
            if condition(changes) { return true }
            usleep(5_000)
        }
        return condition(changes)
    }

    func waitFor(_ change: FileChange, milliseconds: Int = 10_000) -> Bool {
        wait(milliseconds: milliseconds) { $0.contains(change) }
    }

    func waitForOverflow(milliseconds: Int = 10_000) -> Bool {
        let deadline = MonotonicClock.nanos() + UInt64(milliseconds) * 1_000_000
        while MonotonicClock.nanos() < deadline && overflows == 0 { usleep(5_000) }
        return overflows > 0
    }
}

/// The server's own files: `.syncthing.*.tmp` names and the private `.workspace/` folder.
let serverIgnore: @Sendable (String) -> Bool = { path in
    if path == ".workspace" || path.hasPrefix(".workspace/") { return true }
    let name = path.split(separator: "/").last.map(String.init) ?? path
    return name.hasPrefix(".syncthing.") && name.hasSuffix(".tmp")
}

func startWatcher(_ dir: TempDir, _ collector: Collector, latency: Int = 50,
                  ignore: @escaping @Sendable (String) -> Bool = serverIgnore) throws -> FileWatcher {
    try FileWatcher(root: dir.path, latencyMilliseconds: latency, ignore: ignore,
                    onChanges: { collector.onChanges($0) },
                    onOverflow: { collector.onOverflow() })
}

func currentThreadID() -> UInt {
    #if canImport(Glibc)
    UInt(pthread_self())
    #else
    UInt(bitPattern: pthread_self())
    #endif
}

func created(_ path: String) -> FileChange { FileChange(path: path, kind: .created) }
func changed(_ path: String) -> FileChange { FileChange(path: path, kind: .changed) }
func deleted(_ path: String) -> FileChange { FileChange(path: path, kind: .deleted) }

// MARK: Plain system calls

func writeFile(_ path: String, _ text: String = "x") {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    precondition(fd >= 0, "open \(path) failed: \(errno)")
    var bytes = Array(text.utf8)
    _ = write(fd, &bytes, bytes.count)
    close(fd)
}

func appendFile(_ path: String, _ text: String) {
    let fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
    precondition(fd >= 0, "open \(path) failed: \(errno)")
    var bytes = Array(text.utf8)
    _ = write(fd, &bytes, bytes.count)
    close(fd)
}

func makeDirectories(_ path: String) {
    var current = ""
    for part in path.split(separator: "/") {
        current += "/" + part
        if mkdir(current, 0o755) != 0 && errno != EEXIST { preconditionFailure("mkdir \(current): \(errno)") }
    }
}

func removeTree(_ path: String) {
    var st = stat()
    guard lstat(path, &st) == 0 else { return }
    guard st.st_mode & S_IFMT == S_IFDIR else { unlink(path); return }
    if let dir = opendir(path) {
        var names: [String] = []
        let offset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!
        while let entry = readdir(dir) {
            let name = String(cString: (UnsafeRawPointer(entry) + offset).assumingMemoryBound(to: CChar.self))
            if name != "." && name != ".." { names.append(name) }
        }
        closedir(dir)
        for name in names { removeTree(path + "/" + name) }
    }
    rmdir(path)
}

