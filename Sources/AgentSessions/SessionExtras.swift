import JSON

/// Where a fork came from: the parent session and the message it was cut at.
public struct Lineage: Sendable, Equatable {
    /// How a session hangs under its parent.
    public enum Kind: String, Sendable, CaseIterable {
        /// A copy of the parent's history up to a message (`session/fork`).
        case fork
        /// A stream of its own under the parent, e.g. a subagent's transcript (`session/create`'s `parentId`).
        case child
    }

    public var parentId: String
    /// The last message carried over (`nil` when the parent had none, and for a child).
    public var messageId: String?
    /// When the fork or child was made (nanoseconds since 1970).
    public var atNanos: Int64
    public var kind: Kind = .fork

    public init(parentId: String, messageId: String?, atNanos: Int64, kind: Kind = .fork) {
        self.parentId = parentId
        self.messageId = messageId
        self.atNanos = atNanos
        self.kind = kind
    }

}

/// Stored as before for a fork (so a fork's journal reads the same in older versions); a child
/// adds `kind` (an older version takes it for a fork).
extension Lineage: StoredForm {
    static let storedFields: [StoredField<Lineage>] = [
        .required("parentId", \.parentId), .required("at", \.atNanos), .optional("messageId", \.messageId),
        .unlessUsual("kind", \.kind, .fork),
    ]
    static var unread: Lineage { Lineage(parentId: "", messageId: nil, atNanos: 0) }
}

/// One compaction of a run of messages: who made it, when, what it replaced, and whether it is
/// still in force (`undoneAtNanos == nil`). Its originals live in the journal until the next
/// rewrite moves them to the session's archive (`compacted.jsonl`), and are gone only when the
/// retention policy drops them (`originalsDroppedAtNanos`).
public struct Compaction: Sendable, Equatable {
    public var id: String
    public var firstMessageId: String
    public var throughMessageId: String
    public var count: Int
    public var summary: JSON
    /// The role the summary entry is shown with (`system` unless the compaction said otherwise).
    public var summaryRole: MessageRole = .system
    public var by: String
    public var atNanos: Int64
    public var undoneAtNanos: Int64?
    public var originalsDroppedAtNanos: Int64?
    /// Refs of the originals while they are still in the journal (`nil` once archived).
    var originals: [MessageRef]?

    public var isActive: Bool { undoneAtNanos == nil }

    init(id: String, first: String, through: String, count: Int, summary: JSON, by: String, at: Int64) {
        self.id = id
        firstMessageId = first
        throughMessageId = through
        self.count = count
        self.summary = summary
        self.by = by
        atNanos = at
    }
}

/// A compaction's journal record: short names (`first`, `through`, `undoneAt`, `droppedAt`), times
/// as integers, the summary's role only when it is not `system`, and the originals' refs while
/// they are in the journal (one damaged ref refuses the record: its originals could not be found).
extension Compaction: StoredForm {
    static let storedFields: [StoredField<Compaction>] = [
        .required("id", \.id), .required("first", \.firstMessageId), .required("through", \.throughMessageId),
        .required("count", \.count), .always("summary", \.summary, else: .null), .required("by", \.by),
        .required("at", \.atNanos), .unlessUsual("role", \.summaryRole, .system), .optional("undoneAt", \.undoneAtNanos),
        .optional("droppedAt", \.originalsDroppedAtNanos), .optionalStrict("originals", \.originals),
    ]
    static var unread: Compaction { Compaction(id: "", first: "", through: "", count: 0, summary: .null, by: "", at: 0) }
}

extension MessageRef {
    /// A compaction's place in the message list: `id` is the compaction's id.
    var isPlaceholder: Bool { position < 0 }
}

/// A message's place, stored as `[id, offset, length, position]`.
extension MessageRef: StoredValue {
    var storedJSON: JSON { [.string(id), .int(record.offset), .int(Int64(record.length)), JSON(position)] }

    init?(storedJSON j: JSON) {
        guard case .array(let a) = j, a.count == 4, case .string(let mid) = a[0], case .int(let off) = a[1],
              case .int(let len) = a[2], let length = Int32(exactly: len), case .int(let pos) = a[3],
              let position = Int(exactly: pos) else { return nil }
        self.init(id: mid, record: RecordRef(offset: off, length: length), position: position)
    }
}

/// A tool call waiting for the user's consent, or decided.
public struct Approval: Sendable, Equatable {
    public enum Decision: String, Sendable, CaseIterable { case allow, deny }
    public var approvalId: String
    public var toolCallId: String
    public var name: String
    public var arguments: JSON
    public var requestedAtNanos: Int64
    public var decision: Decision?
    public var remember: Bool
    /// What the call does (`ToolFacts.effect` when it was asked for); nil in journals written
    /// before effects were recorded.
    public var effect: ToolEffect?
    /// Who asked, when it is not `session/callTool`: `"mcp"` for MCP's `tools/call`, whose
    /// client has no tool call ids and retries the call itself once the approval is decided
    /// (so answering it records the decision and runs nothing).
    public var origin: String?

    init(approvalId: String, toolCallId: String, name: String, arguments: JSON, at: Int64) {
        self.approvalId = approvalId
        self.toolCallId = toolCallId
        self.name = name
        self.arguments = arguments
        requestedAtNanos = at
        remember = false
    }

    /// The key of a remembered decision: the tool and the effect of the call it was given for
    /// (a decision remembered for a plain copy does not answer an overwriting one). A decision
    /// remembered before effects were recorded is keyed by the tool name alone, which no call
    /// looks up any more: the user is asked again.
    static func rememberKey(_ name: String, _ effect: ToolEffect?) -> String {
        effect.map { "\(name) \($0.rawValue)" } ?? name
    }

    /// The tool a remembered decision's key (`rememberKey`) was given for.
    static func rememberedTool(_ key: String) -> String {
        String(key.split(separator: " ", maxSplits: 1).first ?? Substring(key))
    }
}

/// An approval's journal record: short names (`aid`, `call`, `args`, `by` for the origin, `fx`
/// for the effect), the time as an integer.
extension Approval: StoredForm {
    static let storedFields: [StoredField<Approval>] = [
        .required("aid", \.approvalId), .required("call", \.toolCallId), .required("name", \.name),
        .always("args", \.arguments, else: .object([:])), .required("at", \.requestedAtNanos),
        .always("remember", \.remember, else: false), .optional("decision", \.decision), .optional("by", \.origin),
        .optional("fx", \.effect),
    ]
    static var unread: Approval { Approval(approvalId: "", toolCallId: "", name: "", arguments: .object([:]), at: 0) }
}

/// A tool call the device policy deferred: recorded so it is visible and can run later.
public struct DeferredCall: Sendable, Equatable {
    public var toolCallId: String
    public var name: String
    public var arguments: JSON
    public var reason: String
    public var atNanos: Int64

    init(toolCallId: String, name: String, arguments: JSON, reason: String, at: Int64) {
        self.toolCallId = toolCallId
        self.name = name
        self.arguments = arguments
        self.reason = reason
        atNanos = at
    }
}

/// A deferred call's journal record: `call`, `args`, the time as an integer.
extension DeferredCall: StoredForm {
    static let storedFields: [StoredField<DeferredCall>] = [
        .required("call", \.toolCallId), .required("name", \.name), .always("args", \.arguments, else: .object([:])),
        .always("reason", \.reason, else: ""), .required("at", \.atNanos),
    ]
    static var unread: DeferredCall { DeferredCall(toolCallId: "", name: "", arguments: .object([:]), reason: "", at: 0) }
}

/// The facts beyond the anchors (issue 17) a session carries: lineage, compactions, approvals,
/// deferred calls. One value so the snapshot and a rewritten journal's `base` record store it
/// the same way.
struct SessionExtras: Sendable, Equatable {
    var lineage: Lineage?
    var compactions: [Compaction] = []
    var approvalPolicy = ApprovalPolicy.none
    var approvals: [Approval] = []
    /// Decisions the user asked to remember, by tool name and effect (`Approval.rememberKey`).
    var remembered: [String: Approval.Decision] = [:]
    var deferred: [DeferredCall] = []

    var isEmpty: Bool { self == SessionExtras() }

    init() {}
}

/// The snapshot's and a rewritten journal's `base` record's `extras`: each part only when it is
/// not empty (or, for the policy, not `none`); lists are read leniently.
extension SessionExtras: StoredForm {
    static let storedFields: [StoredField<SessionExtras>] = [
        .optional("lineage", \.lineage), .list("compactions", \.compactions),
        .unlessUsual("approvalPolicy", \.approvalPolicy, ApprovalPolicy.none), .list("approvals", \.approvals),
        StoredField(key: "remembered", write: { e -> JSON? in
            guard !e.remembered.isEmpty else { return nil }
            var r = JSONObject()
            for (k, d) in e.remembered.sorted(by: { $0.key < $1.key }) { r[k] = .string(d.rawValue) }
            return .object(r)
        }) { j, e in
            for (k, v) in j?.objectValue?.members ?? [] {
                if let d = Approval.Decision(storedJSON: v) { e.remembered[k] = d }
            }
            return true
        },
        .list("deferred", \.deferred),
    ]
    static var unread: SessionExtras { SessionExtras() }
}

/// A policy's journal form: `"none"`, `"destructive"` or `{tools, annotations}` (each sorted),
/// read by `ApprovalPolicy(reading:)`; one that no longer reads is unreadable. The protocol
/// sends the same form (`SessionPolicyResults.swift` encodes it from `storedJSON`'s cases).
extension ApprovalPolicy: StoredValue {
    var storedJSON: JSON {
        switch self {
        case .none: "none"
        case .destructive: "destructive"
        case .rules(let tools, let annotations):
            ["tools": .array(tools.sorted().map(JSON.string)), "annotations": .array(annotations.sorted().map(JSON.string))]
        }
    }

    init?(storedJSON j: JSON) {
        guard let p = try? ApprovalPolicy(reading: j) else { return nil }
        self = p
    }
}
