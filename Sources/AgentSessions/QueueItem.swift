import JSON
import SystemSupport

/// One piece of deferred work in the offline queue.
public struct QueueItem: Sendable, Equatable {
    public enum Status: String, Sendable, CaseIterable {
        /// Waiting to run (new, or failed with `retry`).
        case pending
        case completed
        /// Failed without retry: final.
        case failed
    }

    public let id: String
    public let kind: String
    public let payload: JSON
    public let idempotencyKey: String
    public let requiresNetwork: Bool
    public var status: Status
    /// How many times it failed.
    public var attempts: Int
    public var result: JSON?
    public var error: JSON?
    public let createdAtNanos: Int64
    public var updatedAtNanos: Int64

    /// The protocol's item object.
    public var json: JSON {
        var o: JSONObject = ["id": .string(id), "kind": .string(kind), "payload": payload,
                             "idempotencyKey": .string(idempotencyKey), "requiresNetwork": .bool(requiresNetwork),
                             "status": .string(status.rawValue), "attempts": JSON(attempts)]
        if let result { o["result"] = result }
        if let error { o["error"] = error }
        o["createdAt"] = .string(Timestamp.iso8601(nanos: createdAtNanos))
        o["updatedAt"] = .string(Timestamp.iso8601(nanos: updatedAtNanos))
        return .object(o)
    }

    /// The journal's and snapshot's form (times as integers).
    var stored: JSON {
        var o: JSONObject = ["id": .string(id), "kind": .string(kind), "payload": payload, "key": .string(idempotencyKey),
                             "net": .bool(requiresNetwork), "status": .string(status.rawValue), "attempts": JSON(attempts)]
        if let result { o["result"] = result }
        if let error { o["error"] = error }
        o["createdAt"] = .int(createdAtNanos)
        o["updatedAt"] = .int(updatedAtNanos)
        return .object(o)
    }

    init(id: String, kind: String, payload: JSON, idempotencyKey: String, requiresNetwork: Bool, at: Int64) {
        self.id = id
        self.kind = kind
        self.payload = payload
        self.idempotencyKey = idempotencyKey
        self.requiresNetwork = requiresNetwork
        status = .pending
        attempts = 0
        createdAtNanos = at
        updatedAtNanos = at
    }

    init?(stored o: JSON) {
        guard let id = o["id"]?.stringValue, let kind = o["kind"]?.stringValue, let key = o["key"]?.stringValue,
              let at = o["createdAt"]?.intValue else { return nil }
        self.init(id: id, kind: kind, payload: o["payload"] ?? .null, idempotencyKey: key,
                  requiresNetwork: o["net"]?.boolValue ?? true, at: at)
        status = o["status"]?.stringValue.flatMap(Status.init(rawValue:)) ?? .pending
        attempts = Int(o["attempts"]?.intValue ?? 0)
        result = o["result"]
        error = o["error"]
        updatedAtNanos = o["updatedAt"]?.intValue ?? at
    }
}

/// The queue's contents as its journal defines them (the fold of its records).
struct QueueState: Sendable, Equatable {
    var items: [QueueItem] = []
    var byId: [String: Int] = [:]
    var byKey: [String: Int] = [:]
    var records = 0
    var end: Int64 = 0
    var lastCrc: UInt32 = 0
    var sinceSnapshot = 0

    mutating func apply(_ r: JSON, ref: RecordRef, crc: UInt32) throws(ReplayFault) {
        guard let type = r["t"]?.stringValue, let at = r["at"]?.intValue else { throw ReplayFault("a record without type or time") }
        switch type {
        case "enq":
            guard let item = r["item"].flatMap(QueueItem.init(stored:)) else { throw ReplayFault("a bad queue item") }
            if byKey[item.idempotencyKey] == nil, byId[item.id] == nil {
                byId[item.id] = items.count
                byKey[item.idempotencyKey] = items.count
                items.append(item)
            }
        case "done", "fail":
            guard let id = r["id"]?.stringValue, let i = byId[id] else { throw ReplayFault("a record for an unknown item") }
            if type == "done" {
                items[i].status = .completed
                if let result = r["result"], !result.isNull { items[i].result = result }
            } else {
                items[i].attempts += 1
                items[i].error = r["error"]
                items[i].status = r["retry"]?.boolValue == true ? .pending : .failed
            }
            items[i].updatedAtNanos = at
        default:
            break  // a newer version's record
        }
        records += 1
        end = ref.end
        lastCrc = crc
        sinceSnapshot += 1
    }

    var snapshot: Snapshot {
        Snapshot(records: records, end: end, lastCrc: lastCrc, state: ["items": .array(items.map(\.stored))])
    }

    init() {}

    init?(snapshot s: Snapshot) {
        guard let list = s.state["items"]?.arrayValue else { return nil }
        for j in list {
            guard let item = QueueItem(stored: j) else { return nil }
            byId[item.id] = items.count
            byKey[item.idempotencyKey] = items.count
            items.append(item)
        }
        records = s.records
        end = s.end
        lastCrc = s.lastCrc
    }
}
