import JSON
import SystemSupport

/// A session as clients see it: a value copied out of the store (changing it changes nothing).
/// Times are wall-clock nanoseconds since 1970 from the store's clock; `createdAt` and
/// `updatedAt` give them as ISO 8601 strings (UTC, milliseconds).
public struct Session: Sendable, Equatable {
    public let id: String
    public var title: String
    public var agentType: String
    public var state: SessionState
    /// The error the session failed with (`{code, message, …}`), when `state` is `failed`.
    public var error: JSON?
    public var config: SessionConfig
    public var usage: Usage
    /// Tool calls not finished: declared by the front end in its last checkpoint (`pending`),
    /// running in this server (`running`), or begun before a crash and never finished
    /// (`interrupted`). A tool call never disappears without a result.
    public var pendingToolCalls: [ToolCallRecord]
    public var metadata: JSON?
    public var createdAtNanos: Int64
    public var updatedAtNanos: Int64
    /// Where a fork came from (`nil` for a session that is not a fork).
    public var lineage: Lineage? = nil
    /// Every compaction ever made, in order, undone ones included (who, when, what).
    public var compactions: [Compaction] = []
    public var approvalPolicy: ApprovalPolicy = .none
    /// Tool calls waiting for the user's consent (they have run nothing).
    public var pendingApprovals: [Approval] = []
    /// Tool calls the device policy deferred, to run when conditions allow.
    public var deferredToolCalls: [DeferredCall] = []
    /// What the session's folder holds on disk, when asked for (`get(id:withBytesOnDisk:)`).
    public var bytesOnDisk: Int64? = nil
    /// How far the session has reached the hub (`nil`: no hub).
    public var replication: ReplicaState? = nil

    public var createdAt: String { Timestamp.iso8601(nanos: createdAtNanos) }
    public var updatedAt: String { Timestamp.iso8601(nanos: updatedAtNanos) }
}

/// A tool call that has no result yet.
public struct ToolCallRecord: Sendable, Equatable {
    public enum Status: String, Sendable {
        /// Declared by the front end (in a checkpoint) and not started through the store.
        case pending
        /// Started by this server and not finished yet.
        case running
        /// Started before the server stopped (or by an owner whose lease is gone) and never
        /// finished: re-run it with the same `toolCallId`, or finish it with an error.
        case interrupted
    }

    public var toolCallId: String
    public var name: String
    public var arguments: JSON
    public var status: Status
    /// When it was started (nanoseconds), for `running` and `interrupted` calls.
    public var startedAtNanos: Int64?

    public init(toolCallId: String, name: String, arguments: JSON = .object([:]), status: Status = .pending,
                startedAtNanos: Int64? = nil) {
        self.toolCallId = toolCallId
        self.name = name
        self.arguments = arguments
        self.status = status
        self.startedAtNanos = startedAtNanos
    }
}

/// A declared tool call's journal form (a checkpoint's `pending`, a snapshot's or `base` record's
/// `declared`): `{toolCallId, name, arguments}`, no status or time (a declared call is pending).
/// One without an id or name is left out; missing arguments read as `{}`.
extension ToolCallRecord: StoredForm {
    static let storedFields: [StoredField<ToolCallRecord>] = [
        .required("toolCallId", \.toolCallId, accept: { !$0.isEmpty }), .required("name", \.name),
        .always("arguments", \.arguments, else: .object([:])),
    ]
    static var unread: ToolCallRecord { ToolCallRecord(toolCallId: "", name: "") }
}

/// What `beginToolCall` decided.
public enum ToolCallBegin: Sendable, Equatable {
    /// The intent is durable: run the tool now, then call `finishToolCall`.
    case started
    /// This call finished before: here is its recorded result. Do not run it again.
    case recorded(result: JSON, isError: Bool)
    /// This call is running in this server right now: do not start it a second time.
    case inProgress
}
