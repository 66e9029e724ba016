import SystemSupport
#if os(Linux)
import Glibc

/// The Linux watcher: one inotify instance, a watch on every directory under the root, and
/// one OS thread blocking in `poll()` on the inotify descriptor and a self-pipe.
///
/// Threading: the tree, the pending batch and the flags below are built in `init` on the
/// caller's thread before the watcher thread starts (thread creation orders them), and after
/// that are touched only by the watcher thread. `injected` is guarded by `gate`'s lock.
final class InotifyBackend: WatcherBackend, @unchecked Sendable {
    let callbacks: WatcherCallbacks
    let rootPath: String
    let latencyNanos: UInt64
    let gate = CallbackGate()
    let inotifyFd: Int32
    /// Watches are added through `/proc/self/fd/N` of a descriptor opened without following
    /// symlinks when /proc is there; otherwise by path with `IN_DONT_FOLLOW`.
    let watchThroughProc: Bool
    private let wakeRead: Int32
    private let wakeWrite: Int32

    // Watcher-thread state.
    var table = WatchTable()
    var pending = ChangeCoalescer()
    var deadline: UInt64 = 0
    var overflowPending = false
    var rebuildNeeded = false
    var watchLimitReported = false
    // Guarded by gate.
    private var injected: [[UInt8]] = []

    init(root: String, latencyMilliseconds: Int, callbacks: WatcherCallbacks) throws(FileWatcherError) {
        self.callbacks = callbacks
        latencyNanos = UInt64(max(0, latencyMilliseconds)) * 1_000_000
        var rootPath = root
        while rootPath.count > 1 && rootPath.hasSuffix("/") { rootPath.removeLast() }
        if let real = realpath(rootPath, nil) {
            rootPath = String(cString: real)
            free(real)
        }
        self.rootPath = rootPath

        // The root is opened per walk, not held: a held descriptor would keep a deleted root's
        // inode alive and postpone its IN_DELETE_SELF/IN_IGNORED until the watcher stops.
        let rootFd = open(rootPath, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard rootFd >= 0 else { throw .cannotOpenRoot(path: root, errno: errno) }
        defer { close(rootFd) }
        let inotifyFd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard inotifyFd >= 0 else {
            let e = errno
            throw .cannotCreateWatcher(errno: e)
        }
        var pipeFds: [Int32] = [-1, -1]
        // pipe2 is a GNU extension Glibc's module does not export; set the flags afterwards.
        guard pipe(&pipeFds) == 0 else {
            let e = errno
            close(inotifyFd)
            throw .cannotCreateWatcher(errno: e)
        }
        for fd in pipeFds {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
        self.inotifyFd = inotifyFd
        wakeRead = pipeFds[0]
        wakeWrite = pipeFds[1]

        // Probe once whether watches can go through /proc (absent in some containers).
        let probe = inotify_add_watch(inotifyFd, "/proc/self/fd/\(rootFd)",
                                      InotifyMask.watched | InotifyMask.onlyDir)
        watchThroughProc = probe >= 0
        if probe >= 0 { inotify_rm_watch(inotifyFd, probe) }

        let e = scan(path: "", parent: -1, name: "", report: false)
        guard table.rootWd >= 0 else {
            closeDescriptors()
            throw .cannotWatchRoot(path: root, errno: e == 0 ? ENOENT : e)
        }
        do {
            try OSThread.detach { [self] in run() }
        } catch {
            closeDescriptors()
            throw .cannotStartThread(errno: error.errno)
        }
    }

    func stop() {
        gate.stop { wake(byte: 0x73) }  // 's'
    }

    /// Test hook: feeds raw inotify records through the watcher thread's decoding path.
    func inject(_ bytes: [UInt8]) {
        gate.withLock {
            guard !gate.isStopped else { return }
            injected.append(bytes)
            wake(byte: 0x69)  // 'i'
        }
    }

    private func wake(byte: UInt8) {
        var b = byte
        _ = write(wakeWrite, &b, 1)  // a full pipe already means "wake up"
    }

    private func closeDescriptors() {
        close(inotifyFd); close(wakeRead); close(wakeWrite)
    }

    var hasWork: Bool { !pending.isEmpty || overflowPending }

    // MARK: The thread

    private func run() {
        let bufferSize = 512 * 1024
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bufferSize, alignment: 8)
        defer { buffer.deallocate() }
        var fds = [pollfd(fd: inotifyFd, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
        if hasWork { deadline = MonotonicClock.nanos() }  // e.g. out of watches during init
        while !gate.isStopped {
            var timeout: Int32 = -1
            if hasWork {
                let now = MonotonicClock.nanos()
                timeout = deadline <= now ? 0 : Int32(min((deadline - now + 999_999) / 1_000_000, 60_000))
            }
            let n = poll(&fds, 2, timeout)
            if n < 0 {
                if errno == EINTR { continue }
                callbacks.diagnose("file watcher: poll failed (errno \(errno)); watching stopped")
                break
            }
            if fds[1].revents != 0 {
                drainWakePipe(buffer)
                if gate.isStopped { break }
                let items: [[UInt8]] = gate.withLock { defer { injected.removeAll() }; return injected }
                for item in items { item.withUnsafeBytes { process($0) } }
            }
            if fds[0].revents & Int16(POLLIN) != 0 {
                readEvents(buffer)
            } else if fds[0].revents & Int16(POLLERR | POLLNVAL) != 0 {
                callbacks.diagnose("file watcher: inotify descriptor failed; watching stopped")
                break
            }
            flushIfDue()
        }
        gate.stop()
        gate.withLock { closeDescriptors() }  // stop() writes to the pipe only under the lock
    }

    private func drainWakePipe(_ buffer: UnsafeMutableRawBufferPointer) {
        while read(wakeRead, buffer.baseAddress, 4096) > 0 {}
    }

    /// Reads in large buffers until the queue is empty or the batch is due, so a burst of
    /// 100,000 events is delivered in timely slices rather than after the last one.
    private func readEvents(_ buffer: UnsafeMutableRawBufferPointer) {
        while true {
            let n = read(inotifyFd, buffer.baseAddress, buffer.count)
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return }  // EAGAIN: drained
            process(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
            if hasWork && MonotonicClock.nanos() >= deadline { return }
        }
    }

    /// Decodes and handles one buffer of records (the real read path and the test hook).
    func process(_ bytes: UnsafeRawBufferPointer) {
        let idleBefore = !hasWork
        let start = MonotonicClock.nanos()
        InotifyEvent.forEach(in: bytes) { handle($0) }
        if rebuildNeeded {
            rebuildNeeded = false
            rebuild()
        }
        if idleBefore && hasWork { deadline = overflowPending ? start : start + latencyNanos }
    }

    private func flushIfDue() {
        guard hasWork, MonotonicClock.nanos() >= deadline else { return }
        let batch = pending.drain()
        let overflow = overflowPending
        overflowPending = false
        if !batch.isEmpty { gate.deliver { callbacks.onChanges(batch) } }
        if overflow { gate.deliver { callbacks.onOverflow() } }
    }
}
#endif
