import JSON

extension SessionData {
    /// Applies a record kind of issue 17 (compactions, approvals, deferred calls).
    mutating func applyExtra(_ type: String, _ r: JSON, ref: RecordRef, at: Int64) throws(ReplayFault) {
        switch type {
        case "compact":
            guard let cid = r["cid"]?.stringValue, let first = r["first"]?.stringValue, let through = r["through"]?.stringValue,
                  let by = r["by"]?.stringValue, let i = messageIndex[first], let j = messageIndex[through], i <= j,
                  messageIndex[cid] == nil, extras.compactions.allSatisfy({ $0.id != cid })
            else { throw ReplayFault("a compaction that does not fit the messages") }
            let run = Array(messages[i...j])
            guard !run.contains(where: \.isPlaceholder) else { throw ReplayFault("a compaction over another compaction") }
            var c = Compaction(id: cid, first: first, through: through, count: run.count, summary: r["summary"] ?? .null,
                               by: by, at: at)
            c.summaryRole = r["role"]?.stringValue.flatMap(MessageRole.init(rawValue:)) ?? .system
            c.originals = run
            extras.compactions.append(c)
            messages.replaceSubrange(i...j, with: [MessageRef(id: cid, record: ref, position: -1)])
            reindexMessages()
        case "place":
            guard let cid = r["cid"]?.stringValue, let k = extras.compactions.firstIndex(where: { $0.id == cid }),
                  extras.compactions[k].isActive, messageIndex[cid] == nil
            else { throw ReplayFault("a compaction's place for an unknown compaction") }
            messageIndex[cid] = messages.count
            messages.append(MessageRef(id: cid, record: ref, position: -1))
        case "uncompact":
            guard let cid = r["cid"]?.stringValue, let k = extras.compactions.firstIndex(where: { $0.id == cid }),
                  extras.compactions[k].isActive, let i = messageIndex[cid], messages[i].isPlaceholder
            else { throw ReplayFault("undoing an unknown compaction") }
            var restored: [MessageRef]
            if let list = r["m"]?.arrayValue {
                restored = []
                for (p, m) in list.enumerated() {
                    guard let mid = m["id"]?.stringValue else { throw ReplayFault("a restored message without an id") }
                    restored.append(MessageRef(id: mid, record: ref, position: p))
                }
            } else if let originals = extras.compactions[k].originals {
                restored = originals
            } else {
                throw ReplayFault("undoing a compaction whose originals are not in the journal")
            }
            messages.replaceSubrange(i...i, with: restored)
            extras.compactions[k].undoneAtNanos = at
            extras.compactions[k].originals = nil
            reindexMessages()
        case "drop":
            for cid in (r["cids"]?.arrayValue ?? []).compactMap(\.stringValue) {
                if let k = extras.compactions.firstIndex(where: { $0.id == cid }) {
                    extras.compactions[k].originalsDroppedAtNanos = at
                }
            }
        case "policy":
            extras.approvalPolicy = r["policy"].flatMap(ApprovalPolicy.init(storedJSON:)) ?? .none
        case "ask":
            guard var a = Approval(stored: r) else { throw ReplayFault("an approval request without its call") }
            a.requestedAtNanos = at
            extras.approvals.removeAll { $0.toolCallId == a.toolCallId }
            extras.approvals.append(a)
        case "decide":
            guard let aid = r["aid"]?.stringValue, let k = extras.approvals.firstIndex(where: { $0.approvalId == aid }),
                  let d = r["decision"]?.stringValue.flatMap(Approval.Decision.init(rawValue:))
            else { throw ReplayFault("a decision for an unknown approval") }
            extras.approvals[k].decision = d
            extras.approvals[k].remember = r["remember"]?.boolValue ?? false
            let a = extras.approvals[k]
            if a.remember { extras.remembered[Approval.rememberKey(a.name, a.effect)] = d }
        case "defer":
            guard let call = DeferredCall(stored: r) else { throw ReplayFault("a deferred call without its call") }
            extras.deferred.removeAll { $0.toolCallId == call.toolCallId }
            extras.deferred.append(call)
        default:
            break
        }
    }

    mutating func reindexMessages() {
        messageIndex.removeAll(keepingCapacity: true)
        for (k, m) in messages.enumerated() { messageIndex[m.id] = k }
    }

    /// The record that opens a rewritten journal: every fact no retained record carries.
    func baseRecord(id newId: String? = nil, at: Int64) -> JSON {
        var o: JSONObject = ["t": "base", "id": .string(newId ?? id), "title": .string(title), "agentType": .string(agentType),
                             "config": config.stored]
        if let metadata { o["metadata"] = metadata }
        o["createdAt"] = .int(createdAt)
        o["updatedAt"] = .int(updatedAt)
        o["state"] = .string(state.rawValue)
        if let error { o["error"] = error }
        o["usage"] = usage.stored
        o["toolSequence"] = JSON(toolSequence)
        if !declared.isEmpty { o["declared"] = .array(declared.map(\.stored)) }
        if !extras.isEmpty { o["extras"] = extras.stored }
        o["at"] = .int(at)
        return .object(o)
    }
}
