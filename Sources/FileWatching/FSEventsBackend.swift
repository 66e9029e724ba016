#if canImport(CoreServices) && !os(Linux)
import CoreServices
import Darwin
import Dispatch
import SystemSupport

/// The macOS watcher: one FSEvents stream with per-file events, delivered on a private
/// serial dispatch queue. FSEvents watches the whole tree itself (no per-directory watches,
/// no limit to run out of) and reports real paths, so entries reached through a symbolic
/// link are outside the root's prefix and dropped. The stream already groups events by
/// `latency`; each callback's events are coalesced into one batch.
///
/// Threading: `stream` is set in `init` and afterwards touched only on `queue`.
final class FSEventsBackend: WatcherBackend, @unchecked Sendable {
    private let callbacks: WatcherCallbacks
    private let rootPath: String     // canonical (FSEvents reports /private/var, not /var)
    private let gate = CallbackGate()
    private let queue = DispatchQueue(label: "FileWatching.FSEvents")
    private var stream: FSEventStreamRef?

    init(root: String, latencyMilliseconds: Int, callbacks: WatcherCallbacks) throws(FileWatcherError) {
        self.callbacks = callbacks
        guard let real = realpath(root, nil) else { throw .cannotOpenRoot(path: root, errno: errno) }
        rootPath = String(cString: real)
        free(real)
        var st = stat()
        guard lstat(rootPath, &st) == 0 else { throw .cannotOpenRoot(path: root, errno: errno) }
        guard st.st_mode & S_IFMT == S_IFDIR else { throw .cannotOpenRoot(path: root, errno: ENOTDIR) }

        guard let cfRoot = CFStringCreateWithCString(kCFAllocatorDefault, rootPath,
                                                     CFStringBuiltInEncodings.UTF8.rawValue)
        else { throw .cannotOpenRoot(path: root, errno: EINVAL) }
        var values: [UnsafeRawPointer?] = [UnsafeRawPointer(Unmanaged.passUnretained(cfRoot).toOpaque())]
        var arrayCallbacks = kCFTypeArrayCallBacks
        guard let paths = CFArrayCreate(kCFAllocatorDefault, &values, 1, &arrayCallbacks)
        else { throw .cannotCreateWatcher(errno: ENOMEM) }

        // The stream retains this object through the context and releases it when the
        // stream is released, so a callback never sees a freed backend.
        var context = FSEventStreamContext(
            version: 0,
            info: Unmanaged.passUnretained(self).toOpaque(),
            retain: { info in
                guard let info else { return nil }
                _ = Unmanaged<FSEventsBackend>.fromOpaque(info).retain()
                return info
            },
            release: { info in
                guard let info else { return }
                Unmanaged<FSEventsBackend>.fromOpaque(info).release()
            },
            copyDescription: nil)
        let callback: FSEventStreamCallback = { _, info, count, eventPaths, eventFlags, _ in
            guard let info else { return }
            let backend = Unmanaged<FSEventsBackend>.fromOpaque(info).takeUnretainedValue()
            let cPaths = eventPaths.assumingMemoryBound(to: UnsafePointer<CChar>.self)
            backend.handle(count: count, paths: cPaths, flags: eventFlags)
        }
        let flags = FSEventStreamCreateFlags(kFSEventStreamCreateFlagFileEvents)
            | FSEventStreamCreateFlags(kFSEventStreamCreateFlagNoDefer)
        let latency = CFTimeInterval(max(0, latencyMilliseconds)) / 1000
        guard let created = FSEventStreamCreate(kCFAllocatorDefault, callback, &context, paths,
                                                FSEventStreamEventId(kFSEventStreamEventIdSinceNow),
                                                latency, flags)
        else { throw .cannotCreateWatcher(errno: 0) }
        stream = created
        FSEventStreamSetDispatchQueue(created, queue)
        guard FSEventStreamStart(created) else {
            FSEventStreamInvalidate(created)
            FSEventStreamRelease(created)
            stream = nil
            throw .cannotWatchRoot(path: root, errno: 0)
        }
    }

    func stop() {
        guard gate.stop() else { return }
        // No callback runs from here on (the gate); tear the stream down on its own queue.
        queue.async { [self] in
            guard let s = stream else { return }
            stream = nil
            FSEventStreamStop(s)
            FSEventStreamInvalidate(s)
            FSEventStreamRelease(s)
        }
    }

    private static func has<Bit: BinaryInteger>(_ flags: FSEventStreamEventFlags, _ bit: Bit) -> Bool {
        flags & FSEventStreamEventFlags(truncatingIfNeeded: bit) != 0
    }

    private func handle(count: Int, paths: UnsafeMutablePointer<UnsafePointer<CChar>>,
                        flags: UnsafePointer<FSEventStreamEventFlags>) {
        var pending = ChangeCoalescer()
        var overflow = false
        for i in 0..<count {
            let f = flags[i]
            if Self.has(f, kFSEventStreamEventFlagMustScanSubDirs)
                || Self.has(f, kFSEventStreamEventFlagUserDropped)
                || Self.has(f, kFSEventStreamEventFlagKernelDropped) {
                overflow = true
                continue
            }
            if Self.has(f, kFSEventStreamEventFlagHistoryDone) { continue }
            let absolute = String(cString: paths[i])
            guard let path = relative(absolute), !isIgnored(path) else { continue }
            // Flags of one record can accumulate (created|modified|removed); whether the
            // entry exists now decides between deleted and created/changed.
            var st = stat()
            if lstat(absolute, &st) != 0 {
                pending.add(path, .deleted)
            } else if Self.has(f, kFSEventStreamEventFlagItemCreated)
                        || Self.has(f, kFSEventStreamEventFlagItemRenamed) {
                pending.add(path, .created)
            } else {
                pending.add(path, .changed)
            }
        }
        let batch = pending.drain()
        if !batch.isEmpty { gate.deliver { callbacks.onChanges(batch) } }
        if overflow { gate.deliver { callbacks.onOverflow() } }
    }

    /// The workspace-relative path, or nil for the root itself and anything outside it.
    private func relative(_ absolute: String) -> String? {
        let prefix = rootPath == "/" ? "/" : rootPath + "/"
        guard absolute.hasPrefix(prefix), absolute.utf8.count > prefix.utf8.count else { return nil }
        // A name's text (`EscapedName`): a backslash in a name is `\x5c`, as in listings.
        return Array(absolute.utf8.dropFirst(prefix.utf8.count)).withUnsafeBufferPointer { EscapedName.text($0) }
    }

    /// FSEvents reports inside ignored folders too: check every ancestor.
    private func isIgnored(_ path: String) -> Bool {
        var prefix = ""
        for component in path.split(separator: "/", omittingEmptySubsequences: true) {
            prefix = prefix.isEmpty ? String(component) : prefix + "/" + component
            if callbacks.ignore(prefix) { return true }
        }
        return false
    }
}
#endif
