import JSON

/// One piece of deferred work in the offline queue.
public struct QueueItem: Sendable, Equatable {
    public enum Status: String, Sendable, CaseIterable {
        /// Waiting to run (new, or failed with `retry`).
        case pending
        case completed
        /// Failed without retry: final.
        case failed
    }

    public internal(set) var id: String
    public internal(set) var kind: String
    public internal(set) var payload: JSON
    public internal(set) var idempotencyKey: String
    public internal(set) var requiresNetwork: Bool
    public var status: Status
    /// How many times it failed.
    public var attempts: Int
    public var result: JSON?
    public var error: JSON?
    public internal(set) var createdAtNanos: Int64
    public var updatedAtNanos: Int64

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
}

/// The journal's and snapshot's form: short names (`key`, `net`), times as integers; a missing
/// `updatedAt` reads as the creation time.
extension QueueItem: StoredForm {
    static let storedFields: [StoredField<QueueItem>] = [
        .required("id", \.id), .required("kind", \.kind), .always("payload", \.payload, else: .null),
        .required("key", \.idempotencyKey), .always("net", \.requiresNetwork, else: true),
        .always("status", \.status, else: .pending), .always("attempts", \.attempts, else: 0),
        .optional("result", \.result), .optional("error", \.error), .required("createdAt", \.createdAtNanos),
        StoredField(key: "updatedAt", write: { .int($0.updatedAtNanos) }) { j, item in
            item.updatedAtNanos = j?.intValue ?? item.createdAtNanos  // read after createdAt
            return true
        },
    ]
    static var unread: QueueItem {
        QueueItem(id: "", kind: "", payload: .null, idempotencyKey: "", requiresNetwork: true, at: 0)
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
