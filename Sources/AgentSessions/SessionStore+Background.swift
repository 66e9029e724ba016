import JSON
import SystemSupport

extension SessionStore {
    /// The host is going to the background: checkpoints every `running` or `waitingForUser`
    /// session this store can own and moves it to `backgrounded`, in one record per session.
    /// Everything is durable before it returns. The records of all sessions are written
    /// first and each journal is flushed once after, so the cost is one flush per session with
    /// no waiting in between. Sessions another owner holds are left alone; a session that
    /// cannot be written is reported in `drainWarnings()` and left as it was.
    public func backgroundAll() -> [Session] {
        struct Staged {
            let h: SessionHandle
            let next: SessionData
            let from: SessionState
            let before: Int64
            let bytes: [UInt8]
        }
        var staged: [Staged] = []
        for h in allHandles().sorted(by: { $0.id < $1.id }) {
            h.lock.lock()
            do {
                try current(h)
                guard let d = h.data, d.state.isActive, d.records > 0 else { h.lock.unlock(); continue }
                if let lease = LeaseFile.read(h.folder, view: &h.leaseView), lease.owner != owner, lease.expiresAt > now() {
                    h.lock.unlock()
                    continue
                }
                try prepareWrite(h)
                let from = try h.session.state
                guard from.isActive else { h.lock.unlock(); continue }
                let record: JSON = ["t": "ckpt", "cid": .string(SessionNames.randomId("ckpt_")), "from": .string(from.rawValue),
                                    "to": "backgrounded", "reason": "background", "at": .int(now())]
                let (bytes, next) = try stage(h, [record])
                let before = try h.withWriter { w throws(SessionError) in
                    let before = w.end
                    try w.append(bytes)
                    return before
                }
                staged.append(Staged(h: h, next: next, from: from, before: before, bytes: bytes))
            } catch {
                if error.kind != .notFound { warn(h.id, "not backgrounded: \(error)") }  // not a session: skip quietly
                h.lock.unlock()
            }
        }
        var sessions: [Session] = []
        var changes: [StateChange] = []
        for s in staged {
            defer { s.h.lock.unlock() }
            do {
                try s.h.withWriter { w throws(SessionError) in
                    do throws(SessionError) { try w.sync() } catch {
                        w.rollBack(to: s.before)
                        throw error
                    }
                }
            } catch {
                warn(s.h.id, "not backgrounded: \(error)")
                continue
            }
            adopt(s.h, s.next)
            replicate(s.h, offset: s.before, s.bytes)
            sessions.append(view(s.h, s.next))
            changes.append(StateChange(id: s.h.id, from: s.from, to: .backgrounded, reason: "background"))
        }
        notify(changes)
        return sessions
    }

    /// The `backgrounded` sessions, each with its last checkpoint, for the front end to resume.
    public func backgrounded() -> [(session: Session, checkpoint: BackgroundCheckpoint?)] {
        var out: [(session: Session, checkpoint: BackgroundCheckpoint?)] = []
        for h in allHandles() {
            h.lock.lock()
            defer { h.lock.unlock() }
            guard (try? current(h)) != nil, let d = h.data, d.state == .backgrounded else { continue }
            let s = view(h, d)
            var checkpoint: BackgroundCheckpoint?
            if let c = d.checkpoint {
                let partial = c.partial.flatMap { try? readRecord(h, $0)["partial"] } ?? .null
                checkpoint = BackgroundCheckpoint(checkpointId: c.id, atNanos: c.at, pendingToolCalls: s.pendingToolCalls,
                                                  partialResults: partial)
            }
            out.append((s, checkpoint))
        }
        out.sort { ($0.session.createdAtNanos, $0.session.id) < ($1.session.createdAtNanos, $1.session.id) }
        return out
    }
}

/// A backgrounded session's last checkpoint: its id and time, the session's unfinished tool
/// calls, and the partial results of the last checkpoint that carried any (`null` when none did).
public struct BackgroundCheckpoint: Sendable, Equatable {
    public let checkpointId: String
    public let atNanos: Int64
    public let pendingToolCalls: [ToolCallRecord]
    public let partialResults: JSON
}
