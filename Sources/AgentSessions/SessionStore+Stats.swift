import JSON

extension SessionStore {
    /// Per-turn statistics of session `id`, from one read of its journal: a turn opens at each
    /// user message the session still shows (deleted ones open none); usage records and tool
    /// calls belong to the turn open when they were recorded (a call to the turn it began in).
    /// Messages count when the session still has them (or a compaction replaced them).
    public func stats(id: String) throws(SessionError) -> SessionStats {
        let h = try locked(id, forWriting: false)
        defer { h.lock.unlock() }
        let d = try h.session
        guard let bytes = try Disk.readFile(h.journalPath) else { throw .notFound("session", id) }
        var records: [JSON] = []
        bytes.withUnsafeBytes { raw in
            let scan = JournalScan.scan(UnsafeRawBufferPointer(rebasing: raw[0..<Int(min(Int64(raw.count), d.end))]))
            for e in scan.entries {
                let body = UnsafeRawBufferPointer(rebasing: raw[Int(e.ref.offset) + 9..<Int(e.ref.end) - 1])
                if let r = try? JSONCodec.decode(body) { records.append(r) }
            }
        }
        var deleted = Set<String>()
        for r in records where r["t"]?.stringValue == "del" {
            for v in r["ids"]?.arrayValue ?? [] { if let s = v.stringValue { deleted.insert(s) } }
        }
        var turns = [TurnStats()]
        var turnOfCall: [String: Int] = [:]
        var outcome: [String: String] = [:]
        for r in records {
            switch r["t"]?.stringValue ?? "" {
            case "msg":
                for m in r["m"]?.arrayValue ?? [] {
                    guard let mid = m["id"]?.stringValue, !deleted.contains(mid) else { continue }
                    if m["role"]?.stringValue == "user", d.messageIndex[mid] != nil {
                        turns.append(TurnStats(userMessageId: mid, startedAtNanos: m["at"]?.intValue ?? r["at"]?.intValue))
                    }
                    turns[turns.count - 1].messages += 1
                }
            case "usage":
                let i = Int(r["in"]?.intValue ?? 0), o = Int(r["out"]?.intValue ?? 0)
                let model = r["model"]?.stringValue ?? ""
                var t = turns[turns.count - 1]
                t.inputTokens += i
                t.outputTokens += o
                t.modelCalls += 1
                t.costUSD += r["cost"]?.doubleValue ?? 0
                let was = t.byModel[model] ?? (0, 0)
                t.byModel[model] = (was.input + i, was.output + o)
                turns[turns.count - 1] = t
            case "begin", "read":
                guard let call = r["call"]?.stringValue, turnOfCall[call] == nil else { break }
                turnOfCall[call] = turns.count - 1
                turns[turns.count - 1].toolCallsByName[r["name"]?.stringValue ?? "", default: 0] += 1
                if r["t"]?.stringValue == "read" { outcome[call] = r["isError"]?.boolValue == true ? "error" : "ok" }
            case "end":
                guard let call = r["call"]?.stringValue, outcome[call] == nil else { break }
                if turnOfCall[call] == nil {
                    turnOfCall[call] = turns.count - 1
                    turns[turns.count - 1].toolCallsByName[r["name"]?.stringValue ?? "", default: 0] += 1
                }
                outcome[call] = r["isError"]?.boolValue == true ? "error" : "ok"
            default:
                break
            }
        }
        for (call, turn) in turnOfCall { turns[turn].toolCallsByOutcome[outcome[call] ?? "unfinished", default: 0] += 1 }
        // What came before the first user message is a turn only when it holds something.
        if let first = turns.first, first == TurnStats(), turns.count > 1 || records.isEmpty { turns.removeFirst() }
        var totals = TurnStats()
        for t in turns { totals.add(t) }
        var stats = SessionStats(sessionId: id, turns: turns, totals: totals)
        stats.unattributedInputTokens = max(0, d.usage.inputTokens - totals.inputTokens)
        stats.unattributedOutputTokens = max(0, d.usage.outputTokens - totals.outputTokens)
        return stats
    }
}
