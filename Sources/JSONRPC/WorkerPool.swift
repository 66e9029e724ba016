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
public final class WorkerPool: @unchecked Sendable {
    public typealias Work = @Sendable () -> Void

    public let maxThreads: Int
    private let idleSeconds: Int
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let cond = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    // Guarded by mutex:
    private var queue: [Work] = []
    private var head = 0
    private var urgent: [Work] = []
    private var idle = 0
    private var threads = 0
    /// Threads given up on (`abandonOne`) and not yet back: they do not count against `maxThreads`.
    private var abandoned = 0

    public init(maxThreads: Int = 64, idleSeconds: Int = 10) {
        self.maxThreads = maxThreads
        self.idleSeconds = idleSeconds
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(cond, nil)
    }

    deinit {
        pthread_cond_destroy(cond)
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        cond.deallocate()
    }

    /// Queues `work`. Urgent work starts before any other waiting work, on an idle thread or a
    /// new one even when `maxThreads` are busy (for work that must never wait: the reading
    /// loop, `shutdown`); anything else waits for a thread once `maxThreads` are busy.
    public func submit(urgent isUrgent: Bool = false, _ work: @escaping Work) {
        pthread_mutex_lock(mutex)
        if isUrgent { urgent.append(work) } else { queue.append(work) }
        let waiting = queue.count - head + urgent.count
        let spawn = waiting > idle && (isUrgent || threads < maxThreads + abandoned)
        if spawn { threads += 1 }
        pthread_mutex_unlock(mutex)
        // Signalled after unlocking, so the woken worker does not at once block on the mutex
        // (it re-checks the queue under the mutex in any case).
        pthread_cond_signal(cond)
        if spawn { OSThread.detach { [self] in self.workerLoop() } }
    }

    /// A running work item has been given up on (a cancelled handler stuck in a system call):
    /// until `abandonedReturned`, its thread does not count against `maxThreads`, so stuck
    /// handlers that were cancelled never starve new work.
    public func abandonOne() {
        pthread_mutex_lock(mutex)
        abandoned += 1
        let spawn = queue.count - head > idle && threads < maxThreads + abandoned
        if spawn { threads += 1 }
        pthread_mutex_unlock(mutex)
        if spawn { OSThread.detach { [self] in self.workerLoop() } }
    }

    /// The work item given up on by `abandonOne` has returned.
    public func abandonedReturned() {
        pthread_mutex_lock(mutex)
        abandoned -= 1
        pthread_mutex_unlock(mutex)
    }

    /// Whether submitted work is waiting for a thread (not merely running).
    public var hasBacklog: Bool {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return queue.count > head
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
            let work: Work
            if !urgent.isEmpty {
                work = urgent.removeFirst()
            } else {
                work = queue[head]
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
            work()
            pthread_mutex_lock(mutex)
        }
    }
}
