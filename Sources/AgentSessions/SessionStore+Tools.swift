import JSON

extension SessionStore {
    /// Asks to run tool call `toolCallId`. Returns `.recorded` with the stored result if it
    /// finished before (it is never run twice), `.inProgress` if this server is running it now,
    /// and `.started` once the intent (name and arguments) is durable. An `interrupted` call
    /// (begun before a crash) may be started again. Refused on a `completed` or `failed`
    /// session unless its result is already recorded.
    public func beginToolCall(id: String, toolCallId: String, name: String,
                              arguments: JSON = .object([:])) throws(SessionError) -> ToolCallBegin {
        guard !toolCallId.isEmpty else { throw .invalid("toolCallId must not be empty") }
        guard !name.isEmpty else { throw .invalid("a tool call needs a name") }
        let h = try locked(id, forWriting: false)
        defer { h.lock.unlock() }
        if let done = try recorded(h, toolCallId) { return done }
        if h.live.contains(toolCallId) { return .inProgress }
        try refuseIfFinal(h.session, doing: "run tool calls")
        try prepareWrite(h)
        if let done = try recorded(h, toolCallId) { return done }  // the lease may have brought newer records
        try refuseIfFinal(h.session, doing: "run tool calls")
        try commit(h, [["t": "begin", "call": .string(toolCallId), "name": .string(name), "args": arguments,
                        "at": .int(now())]])
        h.live.insert(toolCallId)
        return .started
    }

    private func recorded(_ h: SessionHandle, _ toolCallId: String) throws(SessionError) -> ToolCallBegin? {
        guard let t = try h.session.toolCalls[toolCallId], let ref = t.result else { return nil }
        let r = try readRecord(h, ref)
        return .recorded(result: r["result"] ?? .null, isError: t.isError)
    }

    /// Records the result of a tool call, durably. Finishing a call that already has a result
    /// changes nothing. Works in every state (an interrupted call can always be closed, e.g.
    /// with `isError: true`), so no call is left without a result.
    public func finishToolCall(id: String, toolCallId: String, result: JSON, isError: Bool = false) throws(SessionError) {
        let h = try locked(id, forWriting: false)
        defer { h.lock.unlock() }
        if try h.session.toolCalls[toolCallId]?.isFinished == true { h.live.remove(toolCallId); return }
        try prepareWrite(h)
        let d = try h.session
        let declared = d.declared.first { $0.toolCallId == toolCallId }
        // Known from its beginning, the front end's checkpoint, a deferral or an approval request
        // (a refused or abandoned call is closed with a result too).
        let asked = d.extras.deferred.first { $0.toolCallId == toolCallId }?.name
            ?? d.extras.approvals.last { $0.toolCallId == toolCallId }?.name
        guard let known = d.toolCalls[toolCallId].map(\.name) ?? declared?.name ?? asked else {
            throw SessionError(.notFound, "session \(id) has no tool call \(toolCallId)",
                               .toolCall(sessionId: id, toolCallId: toolCallId))
        }
        if d.toolCalls[toolCallId]?.isFinished == true { h.live.remove(toolCallId); return }
        try commit(h, [["t": "end", "call": .string(toolCallId), "name": .string(known), "result": result,
                        "isError": .bool(isError), "at": .int(now())]])
        h.live.remove(toolCallId)
    }

    /// Records a read-only tool call that has already run: one `read` record (intent, arguments
    /// and result together), without waiting for the disk. Reading changes nothing, so losing this
    /// record in a crash loses no work, and an agent's reads cost no `fsync`; the next durable
    /// write of the session flushes it. A read is finished as it is recorded, so it is not kept in
    /// the session's table of tool calls (nor in its snapshots): an agent that reads all day does
    /// not grow the session's memory. Its id is therefore not remembered for replays.
    ///
    /// While this store holds the lease with at least half its term left and the journal open,
    /// the lease file is not looked at again (`prepareWrite` would find it unchanged and do
    /// nothing): the same trust `current` places in a held lease. A durable change still checks
    /// it, and renews it once half the term is gone.
    public func recordReadOnlyToolCall(id: String, toolCallId: String, name: String, arguments: JSON, result: JSON,
                                       isError: Bool) throws(SessionError) {
        let h = try locked(id, forWriting: false)
        defer { h.lock.unlock() }
        if !holdsFreshLease(h) { try prepareWrite(h) }
        try commit(h, [["t": "read", "call": .string(toolCallId), "name": .string(name), "args": arguments, "result": result,
                        "isError": .bool(isError), "at": .int(now())]], durable: false)
    }

    /// Whether the journal is open for appending, intact, under this store's lease with at least
    /// half of its term left. Lock held.
    private func holdsFreshLease(_ h: SessionHandle) -> Bool {
        guard h.writer != nil, h.fault == nil, let d = h.data, d.records > 0,
              let lease = h.leaseView.lease, lease.owner == owner else { return false }
        return lease.expiresAt - now() >= leaseTerm / 2
    }

    /// The recorded result of a finished tool call and its tool's name, or `nil` if it has none yet.
    public func toolCallResult(id: String, toolCallId: String) throws(SessionError) -> (result: JSON, isError: Bool, name: String)? {
        let h = try locked(id, forWriting: false)
        defer { h.lock.unlock() }
        guard case .recorded(let result, let isError)? = try recorded(h, toolCallId), let name = try h.session.toolCalls[toolCallId]?.name
        else { return nil }
        return (result, isError, name)
    }
}
