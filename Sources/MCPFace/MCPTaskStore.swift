#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BridgeServer
import JSON
import JSONRPC
import Synchronization
import SystemSupport

/// The tasks of the tasks extension, process-wide (a task is polled from any request, even of
/// another connection): their status, progress, and outcome.
///
/// Guarantees: ids are 128 random bits (bearer tokens); at most `MCPTasks.maxWorking` run at
/// once and at most `MCPTasks.maxKept` are remembered (the oldest finished one is forgotten
/// first); a finished task's result or error is kept, the same on every `tasks/get`, until
/// `MCPTasks.ttlMs` after it ended. Status only moves forward: working → completed, failed or
/// cancelled; a cancel after the end changes nothing.
final class MCPTaskStore: Sendable {
    enum Status: String { case working, completed, failed, cancelled }

    /// How a task ended: its result, or its error already in protocol form (mapped once, by the
    /// same mapping as every other path, when the task failed).
    private enum Outcome {
        case result(JSON)
        case error(RPCError)

        var errorMessage: String? { if case .error(let e) = self { e.message } else { nil } }
    }

    private struct Task {
        var status: Status = .working
        var message: String
        let createdAt: Int64
        var updatedAt: Int64
        var outcome: Outcome?
        let work: RequestContext
        var endedMonotonic: UInt64?
    }

    private let tasks = Mutex<[String: Task]>([:])

    /// Starts `run` on a thread of its own as a new task; nil when `maxWorking` tasks are running
    /// or no thread can be started (the caller then runs the call itself, as a plain request).
    /// An error `run` throws is kept as `mapError` maps it (`Services.mapError`).
    func start(_ ctx: RequestContext, statusMessage: String, mapError: @escaping @Sendable (any Error) -> RPCError,
               run: @escaping @Sendable (RequestContext) throws -> JSON) -> String? {
        let id = Self.newID()
        let work = ctx.detached { [weak self] value in
            if let m = value["value"]?["message"]?.stringValue { self?.progress(id, m) }
        }
        let now = WallClock.nanos()
        let admitted = tasks.withLock { t -> Bool in
            Self.sweep(&t)
            guard t.values.filter({ $0.status == .working }).count < MCPTasks.maxWorking else { return false }
            if t.count >= MCPTasks.maxKept, let oldest = t.filter({ $0.value.status != .working })
                .min(by: { $0.value.updatedAt < $1.value.updatedAt })?.key {
                t[oldest] = nil
            }
            t[id] = Task(message: statusMessage, createdAt: now, updatedAt: now, work: work)
            return true
        }
        guard admitted else { return nil }
        // The request's logger: the task's lines carry the request's trace context (`MCPTraceContext`).
        let logger = ctx.logger
        let subject = ctx.params?["name"]?.stringValue.map { "\(ctx.method) \($0)" } ?? ctx.method
        logger.debug("task \(id): \(subject) goes on in the background")
        let started: ()? = try? OSThread.detach { [self] in
            let status: Status
            let outcome: Outcome?
            do {
                outcome = .result(try run(work))
                status = .completed
            } catch let e as RPCError where e.code == ErrorCode.requestCancelled || work.isCancelled {
                status = .cancelled
                outcome = nil
                logger.debug("task \(id) cancelled: \(e.message)")
            } catch {
                status = work.isCancelled ? .cancelled : .failed
                outcome = work.isCancelled ? nil : .error(mapError(error))
            }
            finish(id, status, outcome)
            logger.debug("task \(id): \(subject) ended \(status.rawValue)")
        }
        guard started != nil else {
            tasks.withLock { $0[id] = nil }
            logger.debug("task \(id): no thread for it, \(subject) runs as a plain request")
            return nil
        }
        return id
    }

    /// Waits up to `nanos` for a task to end; when it did, it is forgotten and its outcome
    /// returned (a result, or its error thrown), as if the call had never been a task.
    func awaitQuickly(_ id: String, within nanos: UInt64) throws -> JSON? {
        let deadline = MonotonicClock.nanos() + nanos
        while MonotonicClock.nanos() < deadline {
            let ended: Task? = tasks.withLock { t in
                guard let task = t[id], task.status != .working else { return nil }
                t[id] = nil
                return task
            }
            if let ended {
                switch (ended.status, ended.outcome) {
                case (.completed, .result(let result)?): return result
                case (.failed, .error(let e)?): throw e
                default: throw RPCError.cancelled
                }
            }
            usleep(2000)
        }
        return nil
    }

    /// The task as the extension shapes it (a `CreateTaskResult` for "task", a `DetailedTask` for
    /// "complete"); nil when unknown or expired.
    func detail(_ id: String, resultType: String) -> JSON? {
        guard let task = tasks.withLock({ t -> Task? in
            Self.sweep(&t)
            return t[id]
        }) else { return nil }
        var o: JSONObject = [
            "resultType": .string(resultType), "taskId": .string(id), "status": .string(task.status.rawValue),
            "statusMessage": .string(task.message),
            "createdAt": .string(Timestamp.iso8601(nanos: task.createdAt)),
            "lastUpdatedAt": .string(Timestamp.iso8601(nanos: task.updatedAt)),
            "ttlMs": .int(MCPTasks.ttlMs), "pollIntervalMs": .int(MCPTasks.pollIntervalMs),
        ]
        switch (task.status, task.outcome) {
        case (.completed, .result(let result)?): o["result"] = result
        case (.failed, .error(let e)?): o["error"] = e.json
        default: break
        }
        return .object(o)
    }

    /// Asks a working task to stop (cooperatively: it ends `cancelled` at its next check, or
    /// `completed` if it finished first); false when unknown or expired.
    func cancel(_ id: String) -> Bool {
        guard let work = tasks.withLock({ t -> RequestContext? in
            Self.sweep(&t)
            return t[id]?.work
        }) else { return false }
        work.markCancelled()
        return true
    }

    private func progress(_ id: String, _ message: String) {
        let now = WallClock.nanos()
        tasks.withLock { t in
            guard var task = t[id], task.status == .working else { return }
            task.message = message
            task.updatedAt = max(now, task.updatedAt)
            t[id] = task
        }
    }

    private func finish(_ id: String, _ status: Status, _ outcome: Outcome?) {
        let now = WallClock.nanos()
        tasks.withLock { t in
            guard var task = t[id] else { return }
            task.status = status
            task.outcome = outcome
            task.updatedAt = max(now, task.updatedAt)
            task.endedMonotonic = MonotonicClock.nanos()
            task.message = switch status {
            case .completed: "done"
            case .failed: "failed: \(outcome?.errorMessage ?? "")"
            case .cancelled: "cancelled"
            case .working: task.message
            }
            t[id] = task
        }
    }

    private static func sweep(_ t: inout [String: Task]) {
        let now = MonotonicClock.nanos()
        let ttl = UInt64(MCPTasks.ttlMs) * 1_000_000
        for (id, task) in t { if let ended = task.endedMonotonic, now > ended + ttl { t[id] = nil } }
    }

    /// 128 random bits, hex.
    private static func newID() -> String {
        var g = SystemRandomNumberGenerator()
        let a = g.next() as UInt64, b = g.next() as UInt64
        return hex(a) + hex(b)
    }

    private static func hex(_ v: UInt64) -> String {
        let s = String(v, radix: 16)
        return String(repeating: "0", count: 16 - s.count) + s
    }
}
