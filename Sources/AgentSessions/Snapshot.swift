import JSON

/// A snapshot file: a state and the journal position it covers, in one checksummed line.
///
/// Written crash-safely (temp, flush, rename, flush folder). On open it is used only if it is
/// intact and the journal still holds the very record it ends on (same offset, same checksum);
/// otherwise it is ignored and the journal is replayed from the start. The journal stays the
/// truth: a lost or stale snapshot costs time, never data.
struct Snapshot {
    var records: Int
    var end: Int64
    var lastCrc: UInt32
    var state: JSON

    func write(to path: String) throws(SessionError) {
        let json: JSON = ["v": 1, "records": JSON(records), "offset": .int(end), "lastCrc": .int(Int64(lastCrc)),
                          "state": state]
        try Disk.writeAtomically(path, JournalLine.encode(json))
    }

    /// The snapshot at `path` if it is intact and matches `scan`; `nil` otherwise.
    static func read(_ path: String, matching scan: JournalScan) -> Snapshot? {
        guard let bytes = try? Disk.readFile(path), bytes.last == 0x0A else { return nil }
        let json = bytes.withUnsafeBytes { JournalLine.decode(UnsafeRawBufferPointer(rebasing: $0.dropLast())) }
        guard let json, json["v"]?.intValue == 1, let records = json["records"]?.intValue,
              let end = json["offset"]?.intValue, let crc = json["lastCrc"]?.intValue, let state = json["state"],
              records >= 1, records <= scan.entries.count
        else { return nil }
        let last = scan.entries[Int(records) - 1]
        guard last.ref.end == end, last.crc == UInt32(truncatingIfNeeded: crc) else { return nil }
        return Snapshot(records: Int(records), end: end, lastCrc: last.crc, state: state)
    }
}

extension SessionData {
    var snapshot: Snapshot {
        var o = JSONObject()
        o["id"] = .string(id)
        o["title"] = .string(title)
        o["agentType"] = .string(agentType)
        o["state"] = .string(state.rawValue)
        o["error"] = error ?? .null
        o["config"] = config.stored
        o["usage"] = usage.stored
        o["metadata"] = metadata ?? .null
        o["createdAt"] = .int(createdAt)
        o["updatedAt"] = .int(updatedAt)
        o["messages"] = .array(messages.map { m in
            [.string(m.id), .int(m.record.offset), .int(Int64(m.record.length)), JSON(m.position)]
        })
        o["tools"] = .array(toolCalls.values.sorted { $0.sequence < $1.sequence }.map { t in
            [.string(t.id), .string(t.name), .int(t.startedAt), JSON(t.attempts), JSON(t.sequence), .bool(t.isError),
             t.result.map { .int($0.offset) } ?? .null, t.result.map { .int(Int64($0.length)) } ?? .null,
             t.arguments ?? .null]
        })
        o["toolSequence"] = JSON(toolSequence)
        o["declared"] = .array(declared.map(\.stored))
        if !extras.isEmpty { o["extras"] = extras.stored }
        if hasDeletions { o["deletions"] = true }
        if let c = checkpoint {
            o["checkpoint"] = [
                "id": .string(c.id), "at": .int(c.at), "offset": .int(c.record.offset),
                "length": .int(Int64(c.record.length)),
                "partialOffset": c.partial.map { .int($0.offset) } ?? .null,
                "partialLength": c.partial.map { .int(Int64($0.length)) } ?? .null,
            ]
        }
        return Snapshot(records: records, end: end, lastCrc: lastCrc, state: .object(o))
    }

    /// The state a snapshot holds, or `nil` if it is not one this version wrote.
    init?(snapshot s: Snapshot) {
        let o = s.state
        guard let id = o["id"]?.stringValue, let st = o["state"]?.stringValue.flatMap(SessionState.init(rawValue:)),
              let createdAt = o["createdAt"]?.intValue, let updatedAt = o["updatedAt"]?.intValue,
              let msgs = o["messages"]?.arrayValue, let tools = o["tools"]?.arrayValue
        else { return nil }
        self.id = id
        title = o["title"]?.stringValue ?? ""
        agentType = o["agentType"]?.stringValue ?? ""
        state = st
        error = nonNull(o["error"])
        config = SessionConfig(stored: o["config"]) ?? SessionConfig()
        usage = Usage(stored: o["usage"]) ?? Usage()
        metadata = nonNull(o["metadata"])
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        messages.reserveCapacity(msgs.count)
        messageIndex.reserveCapacity(msgs.count)
        for m in msgs {
            guard case .array(let a) = m, a.count == 4, case .string(let mid) = a[0], case .int(let off) = a[1],
                  case .int(let len) = a[2], case .int(let pos) = a[3]
            else { return nil }
            messageIndex[mid] = messages.count
            messages.append(MessageRef(id: mid, record: RecordRef(offset: off, length: Int32(len)), position: Int(pos)))
        }
        for t in tools {
            guard case .array(let a) = t, a.count == 9, let tid = a[0].stringValue, let name = a[1].stringValue,
                  let started = a[2].intValue, let attempts = a[3].intValue, let seq = a[4].intValue,
                  let isError = a[5].boolValue
            else { return nil }
            let result = a[6].intValue.flatMap { off in a[7].intValue.map { RecordRef(offset: off, length: Int32($0)) } }
            toolCalls[tid] = ToolCallState(id: tid, name: name, arguments: nonNull(a[8]), startedAt: started,
                                           attempts: Int(attempts), result: result, isError: isError, sequence: Int(seq))
        }
        toolSequence = Int(o["toolSequence"]?.intValue ?? 0)
        declared = (o["declared"]?.arrayValue ?? []).compactMap(ToolCallRecord.init(storedJSON:))
        extras = SessionExtras(stored: o["extras"]) ?? SessionExtras()
        hasDeletions = o["deletions"]?.boolValue ?? false
        if let c = o["checkpoint"], let cid = c["id"]?.stringValue, let at = c["at"]?.intValue,
           let off = c["offset"]?.intValue, let len = c["length"]?.intValue {
            let partial = c["partialOffset"]?.intValue.flatMap { po in
                c["partialLength"]?.intValue.map { RecordRef(offset: po, length: Int32($0)) }
            }
            checkpoint = CheckpointState(id: cid, at: at, record: RecordRef(offset: off, length: Int32(len)), partial: partial)
        }
        records = s.records
        end = s.end
        lastCrc = s.lastCrc
        sinceSnapshot = 0
    }
}
