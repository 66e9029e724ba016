import JSON

/// Where a stored message is: its record, and its place in that record's `m` array.
struct MessageRef: Sendable, Equatable {
    var id: String
    var record: RecordRef
    var position: Int
}

/// A tool call the journal has seen begin. Its arguments are kept only while it is unfinished
/// (they are needed to re-run it); its result stays in the journal (`result` points at it).
struct ToolCallState: Sendable, Equatable {
    var id: String
    var name: String
    var arguments: JSON?
    var startedAt: Int64
    var attempts: Int
    var result: RecordRef?
    var isError: Bool
    var sequence: Int
    var isFinished: Bool { result != nil }
}

/// The last checkpoint: its record, and the record holding the partial results it carries
/// (an earlier checkpoint's, when this one brought none).
struct CheckpointState: Sendable, Equatable {
    var id: String
    var at: Int64
    var record: RecordRef
    var partial: RecordRef?
}

/// Why a record cannot be applied: the journal counts only up to it.
struct ReplayFault: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

/// A session's state as the journal defines it: the fold of its records, in order.
///
/// The live store builds each record, applies it to a copy of this value (which validates it),
/// makes it durable, and only then keeps the copy; recovery applies the same records with the
/// same function. So the state after a crash is the state that was acknowledged, and a snapshot
/// plus its tail equals a replay from the start. Big things (message bodies, tool results,
/// partial results) stay in the journal and are read on demand through `RecordRef`s.
struct SessionData: Sendable, Equatable {
    var id: String
    var title: String
    var agentType: String
    var state: SessionState = .idle
    var error: JSON?
    var config: SessionConfig
    var usage = Usage()
    var metadata: JSON?
    var createdAt: Int64
    var updatedAt: Int64
    var messages: [MessageRef] = []
    var messageIndex: [String: Int] = [:]
    var toolCalls: [String: ToolCallState] = [:]
    var toolSequence = 0
    /// Tool calls the front end declared in its last checkpoint and has not begun here.
    var declared: [ToolCallRecord] = []
    var checkpoint: CheckpointState?
    /// Lineage, compactions, approvals and deferred calls (issue 17).
    var extras = SessionExtras()
    /// Messages were deleted (`del` records) from records that still hold them: those records
    /// can no longer be copied byte for byte (a fork rebuilds them from the messages kept).
    var hasDeletions = false
    /// Journal position: records applied, the offset after the last, its checksum, and how many
    /// were applied since the last snapshot.
    var records = 0
    var end: Int64 = 0
    var lastCrc: UInt32 = 0
    var sinceSnapshot = 0

    /// A session with no record applied yet (`records`, `end` and `sinceSnapshot` 0): what a
    /// `create` record starts from, and the placeholder of a journal damaged from its first record.
    init(id: String, title: String, agentType: String, at: Int64) {
        self.id = id
        self.title = title
        self.agentType = agentType
        config = SessionConfig()
        createdAt = at
        updatedAt = at
    }

    /// The state defined by a journal's first record: `create` (a new session), or `base` (the
    /// first record of a rewritten, forked or imported journal: every fact of the session that no
    /// later record carries — state, usage, lineage, compactions, approvals — in one record).
    /// Versions before issue 17 do not know `base` and open such a journal as damaged (read-only)
    /// rather than misread it.
    init(create r: JSON, ref: RecordRef, crc: UInt32) throws(ReplayFault) {
        let type = r["t"]?.stringValue
        guard type == "create" || type == "base", let id = r["id"]?.stringValue, let at = r["at"]?.intValue else {
            throw ReplayFault("the first record is not a session creation")
        }
        self.id = id
        title = r["title"]?.stringValue ?? ""
        agentType = r["agentType"]?.stringValue ?? ""
        config = SessionConfig(stored: r["config"]) ?? SessionConfig()
        if let m = r["metadata"], !m.isNull { metadata = m }
        createdAt = r["createdAt"]?.intValue ?? at
        updatedAt = r["updatedAt"]?.intValue ?? at
        if type == "base" {
            guard let st = r["state"]?.stringValue.flatMap(SessionState.init(rawValue:)) else {
                throw ReplayFault("a base record without a state")
            }
            state = st
            error = nonNull(r["error"])
            usage = Usage(stored: r["usage"]) ?? Usage()
            toolSequence = Int(min(max(0, r["toolSequence"]?.intValue ?? 0), Int64(Int32.max)))
            declared = (r["declared"]?.arrayValue ?? []).compactMap(ToolCallRecord.init(storedJSON:))
            extras = SessionExtras(stored: r["extras"]) ?? SessionExtras()
        } else {
            extras.lineage = Lineage(stored: r["lineage"])
            if let p = r["approvalPolicy"] { extras.approvalPolicy = ApprovalPolicy(storedJSON: p) ?? .none }
        }
        advance(ref, crc)
    }

    mutating func advance(_ ref: RecordRef, _ crc: UInt32) {
        records += 1
        end = ref.end
        lastCrc = crc
        sinceSnapshot += 1
    }

    /// Applies one record (not `create`), or throws if it does not fit the state.
    mutating func apply(_ r: JSON, ref: RecordRef, crc: UInt32) throws(ReplayFault) {
        guard let type = r["t"]?.stringValue, let at = r["at"]?.intValue else {
            throw ReplayFault("a record without a type or time")
        }
        switch type {
        case "msg":
            guard let list = r["m"]?.arrayValue else { throw ReplayFault("a message record without messages") }
            for (k, m) in list.enumerated() {
                guard let mid = m["id"]?.stringValue else { throw ReplayFault("a message without an id") }
                if messageIndex[mid] != nil { continue }
                messageIndex[mid] = messages.count
                messages.append(MessageRef(id: mid, record: ref, position: k))
            }
        case "state":
            guard let from = r["from"]?.stringValue.flatMap(SessionState.init(rawValue:)),
                  let to = r["to"]?.stringValue.flatMap(SessionState.init(rawValue:)),
                  from == state, from.canTransition(to: to)
            else { throw ReplayFault("a state change that does not fit the table or the state") }
            state = to
            error = to == .failed ? nonNull(r["error"]) : nil
        case "usage":
            guard !state.isFinal, let i = r["in"]?.intValue, let o = r["out"]?.intValue, i >= 0, o >= 0 else {
                throw ReplayFault("a usage record that does not fit")
            }
            usage.inputTokens += Int(i)
            usage.outputTokens += Int(o)
            usage.turns += 1
            usage.estimatedCostUSD += r["cost"]?.doubleValue ?? 0
            if let fail = r["fail"], !fail.isNull {
                state = .failed
                error = fail
            }
        case "ckpt":
            guard let cid = r["cid"]?.stringValue else { throw ReplayFault("a checkpoint without an id") }
            if let to = r["to"]?.stringValue {
                guard let next = SessionState(rawValue: to), state.canTransition(to: next) else {
                    throw ReplayFault("a checkpoint with a state change that does not fit")
                }
                state = next
                error = nil
            }
            if let pending = r["pending"]?.arrayValue {
                declared = pending.compactMap(ToolCallRecord.init(storedJSON:)).filter { toolCalls[$0.toolCallId] == nil }
            }
            let partial = nonNull(r["partial"]) != nil ? ref : checkpoint?.partial
            checkpoint = CheckpointState(id: cid, at: at, record: ref, partial: partial)
        case "begin":
            guard let call = r["call"]?.stringValue, let name = r["name"]?.stringValue else {
                throw ReplayFault("a tool call without an id or name")
            }
            declared.removeAll { $0.toolCallId == call }
            extras.deferred.removeAll { $0.toolCallId == call }
            if var t = toolCalls[call] {
                guard !t.isFinished else { break }
                t.attempts += 1
                t.startedAt = at
                t.arguments = r["args"] ?? .object([:])
                toolCalls[call] = t
            } else {
                toolSequence += 1
                toolCalls[call] = ToolCallState(id: call, name: name, arguments: r["args"] ?? .object([:]), startedAt: at,
                                                attempts: 1, result: nil, isError: false, sequence: toolSequence)
            }
        case "end":
            guard let call = r["call"]?.stringValue else { throw ReplayFault("a tool result without a call id") }
            declared.removeAll { $0.toolCallId == call }
            extras.deferred.removeAll { $0.toolCallId == call }
            // A call closed without an answer to its approval (refused, abandoned) waits no more.
            extras.approvals.removeAll { $0.toolCallId == call && $0.decision == nil }
            var t: ToolCallState
            if let known = toolCalls[call] {
                t = known
            } else {
                toolSequence += 1
                t = ToolCallState(id: call, name: r["name"]?.stringValue ?? "", arguments: nil, startedAt: at,
                                  attempts: 0, result: nil, isError: false, sequence: toolSequence)
            }
            guard !t.isFinished else { break }
            t.result = ref
            t.isError = r["isError"]?.boolValue ?? false
            t.arguments = nil
            toolCalls[call] = t
        case "title":
            guard let t = r["title"]?.stringValue else { throw ReplayFault("a title record without a title") }
            title = t
        case "compact", "place", "uncompact", "policy", "ask", "decide", "defer", "drop":
            try applyExtra(type, r, ref: ref, at: at)
        case "del", "meta":
            try applyEdit(type, r)
        case "read":
            // A read-only tool call, finished as it was recorded: journaled for the record, not
            // kept in memory (see `SessionStore.recordReadOnlyToolCall`). A deferred read that
            // finally ran (an MCP client's retry) leaves the deferred calls.
            if let call = r["call"]?.stringValue { extras.deferred.removeAll { $0.toolCallId == call } }
        default:
            // A record type from a newer version: it changes nothing we know of.
            break
        }
        updatedAt = max(updatedAt, at)
        advance(ref, crc)
    }

    /// Unfinished journaled tool calls, in the order they were first begun.
    var unfinishedCalls: [ToolCallState] {
        toolCalls.values.filter { !$0.isFinished }.sorted { $0.sequence < $1.sequence }
    }

    /// The client's view. `running` names the unfinished calls that are alive in this server
    /// (or, when another owner holds the lease, all of them); the rest are `interrupted`.
    func session(running: (String) -> Bool) -> Session {
        var pending = declared
        for t in unfinishedCalls {
            pending.append(ToolCallRecord(toolCallId: t.id, name: t.name, arguments: t.arguments ?? .object([:]),
                                          status: running(t.id) ? .running : .interrupted, startedAtNanos: t.startedAt))
        }
        var s = Session(id: id, title: title, agentType: agentType, state: state, error: error, config: config,
                        usage: usage, pendingToolCalls: pending, metadata: metadata, createdAtNanos: createdAt,
                        updatedAtNanos: updatedAt)
        s.lineage = extras.lineage
        s.compactions = extras.compactions.map { c in
            var c = c
            c.originals = nil
            return c
        }
        s.approvalPolicy = extras.approvalPolicy
        s.pendingApprovals = extras.approvals.filter { $0.decision == nil }
        s.deferredToolCalls = extras.deferred
        return s
    }
}
