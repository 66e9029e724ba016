#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SystemSupport

/// A pool of OS threads for handlers that may block (file I/O, fsync, sleeps).
///
/// Unlike a Dispatch queue, whose width follows the number of cores, the pool starts a new
/// thread whenever work is queued and no thread is idle (up to `maxThreads`), so a long
/// handler never holds back an unrelated one. Idle threads exit after `idleSeconds`.
/// Work items start in submission order, except urgent ones (`submit(urgent:)`), which start
/// first and always get a thread at once, even past `maxThreads`: reading and the control
/// messages never wait behind handlers stuck in a system call.
///
/// Bounded: a handler given up on (`abandonOne`: cancelled while stuck in a system call) frees
/// its place for new work, but only `maxAbandoned` of them at a time; so the pool never holds
/// more than `maxThreads + maxAbandoned` threads for ordinary work. Once that many are taken
/// and at least `maxAbandoned` handlers are abandoned and still stuck, new work that would need
/// a thread is refused (`Refusal.busy`) rather than queued behind threads that may never come
/// back. A thread that cannot be started (a task limit) refuses the work that needed it
/// (`Refusal.noThread`); the process never stops for it.
public final class WorkerPool: @unchecked Sendable {
    public typealias Work = @Sendable () -> Void

    /// Why `submit` did not take work (which then never runs).
    public enum Refusal: Error, Sendable, Equatable {
        /// Every thread is taken and `abandoned` handlers (at least the pool's `maxAbandoned`)
        /// are stuck after a cancel.
        case busy(abandoned: Int, limit: Int)
        /// No thread was idle and none could be started.
        case noThread(OSThread.StartError)
    }

    private final class Item {
        let work: Work
        init(_ work: @escaping Work) { self.work = work }
    }

    public let maxThreads: Int
    public let maxAbandoned: Int
    private let idleSeconds: Int
    private let startThread: OSThread.Starter
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let cond = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    // Guarded by mutex:
    private var queue: [Item] = []
    private var head = 0
    private var urgent: [Item] = []
    private var idle = 0
    private var threads = 0
    /// Handlers given up on (`abandonOne`) and not yet back.
    private var abandoned = 0

    /// - Parameter startThread: how threads are started (tests pass one that fails).
    public init(maxThreads: Int = 64, maxAbandoned: Int = 64, idleSeconds: Int = 10,
                startThread: @escaping OSThread.Starter = OSThread.start) {
        self.maxThreads = maxThreads
        self.maxAbandoned = maxAbandoned
        self.idleSeconds = idleSeconds
        self.startThread = startThread
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(cond, nil)
    }

    deinit {
        pthread_cond_destroy(cond)
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        cond.deallocate()
    }

    /// Queues `work`, or refuses it (then it never runs). Urgent work starts before any other
    /// waiting work, on an idle thread or a new one even when `maxThreads` are busy (for work
    /// that must never wait: the reading loop, `shutdown`), and is refused only when no thread
    /// can be started; anything else waits for a thread once `maxThreads` are busy, or is
    /// refused `busy` when the threads are taken and `maxAbandoned` handlers are stuck.
    public func submit(urgent isUrgent: Bool = false, _ work: @escaping Work) -> Refusal? {
        let item = Item(work)
        pthread_mutex_lock(mutex)
        let waiting = queue.count - head + urgent.count + 1
        let needsThread = waiting > idle
        let roomy = threads < threadLimit
        if needsThread && !isUrgent && !roomy && abandoned >= maxAbandoned {
            let refusal = Refusal.busy(abandoned: abandoned, limit: maxAbandoned)
            pthread_mutex_unlock(mutex)
            return refusal
        }
        if isUrgent { urgent.append(item) } else { queue.append(item) }
        let spawn = needsThread && (isUrgent || roomy)
        if spawn { threads += 1 }
        pthread_mutex_unlock(mutex)
        // Signalled after unlocking, so the woken worker does not at once block on the mutex
        // (it re-checks the queue under the mutex in any case).
        pthread_cond_signal(cond)
        guard spawn else { return nil }
        do {
            try spawnWorker()
            return nil
        } catch {
            // Taken meanwhile by a thread that became idle: it runs after all.
            return withdraw(item, urgent: isUrgent) ? .noThread(error) : nil
        }
    }

    /// Whether work submitted now would start at once: no submitted work waits for a thread
    /// (work started now would overtake it), and a thread is idle or may be started. The
    /// reading thread runs a handler itself only then: taking reading over from it needs a thread.
    public var hasRoom: Bool {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return queue.count == head && (idle > urgent.count || threads < threadLimit)
    }

    /// A running work item has been given up on (a cancelled handler stuck in a system call):
    /// until `abandonedReturned`, its thread does not count against `maxThreads`, for at most
    /// `maxAbandoned` such items at a time, so stuck handlers that were cancelled never starve
    /// new work, and never pile up threads without bound.
    public func abandonOne() {
        pthread_mutex_lock(mutex)
        abandoned += 1
        let spawn = queue.count - head > idle && threads < threadLimit
        if spawn { threads += 1 }
        pthread_mutex_unlock(mutex)
        // Without a new thread the queued work waits for one to come back, as before the cancel.
        if spawn { try? spawnWorker() }
    }

    /// The work item given up on by `abandonOne` has returned.
    public func abandonedReturned() {
        pthread_mutex_lock(mutex)
        abandoned -= 1
        pthread_mutex_unlock(mutex)
    }

    /// Threads now in the pool and handlers abandoned and not back (for tests and reports).
    public var counts: (threads: Int, abandoned: Int) {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return (threads, abandoned)
    }

    /// The most threads ordinary work may have now (guarded by mutex).
    private var threadLimit: Int { maxThreads + min(abandoned, maxAbandoned) }

    /// Starts a worker already counted in `threads`; on failure uncounts it.
    private func spawnWorker() throws(OSThread.StartError) {
        do {
            try startThread { [self] in self.workerLoop() }
        } catch {
            pthread_mutex_lock(mutex)
            threads -= 1
            pthread_mutex_unlock(mutex)
            throw error
        }
    }

    /// Takes `item` out of its queue unless a thread has taken it; true when it was still there.
    private func withdraw(_ item: Item, urgent isUrgent: Bool) -> Bool {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        if isUrgent {
            guard let i = urgent.firstIndex(where: { $0 === item }) else { return false }
            urgent.remove(at: i)
        } else {
            guard let i = queue[head...].firstIndex(where: { $0 === item }) else { return false }
            queue.remove(at: i)
        }
        return true
    }

    private func workerLoop() {
        pthread_mutex_lock(mutex)
        while true {
            while head == queue.count && urgent.isEmpty {
                idle += 1
                var deadline = timespec()
                clock_gettime(CLOCK_REALTIME, &deadline)
                deadline.tv_sec += idleSeconds
                let rc = pthread_cond_timedwait(cond, mutex, &deadline)
                idle -= 1
                if rc == ETIMEDOUT && head == queue.count && urgent.isEmpty {
                    threads -= 1
                    pthread_mutex_unlock(mutex)
                    return
                }
            }
            let item: Item
            if !urgent.isEmpty {
                item = urgent.removeFirst()
            } else {
                item = queue[head]
                head += 1
                if head == queue.count {
                    queue.removeAll(keepingCapacity: true)
                    head = 0
                } else if head > 1024 && head * 2 > queue.count {
                    queue.removeSubrange(0..<head)
                    head = 0
                }
            }
            pthread_mutex_unlock(mutex)
            item.work()
            pthread_mutex_lock(mutex)
        }
    }
}
