import JSON
import SystemSupport

/// Who wrote a message.
public enum MessageRole: String, Sendable, CaseIterable {
    case user, assistant, system, tool
}

/// A message stored in a session's journal (immutable once stored).
public struct Message: Sendable, Equatable {
    public internal(set) var id: String
    public internal(set) var role: MessageRole
    public internal(set) var content: JSON
    public internal(set) var toolCalls: JSON?
    public internal(set) var toolCallId: String?
    /// The caller's facts about the message (a JSON object, at most `MessageInput.metadataLimit`
    /// bytes encoded), stored with it and matched by `session/messages`' `where`.
    public internal(set) var metadata: JSON?
    /// When it was stored (nanoseconds since 1970, the store's clock).
    public internal(set) var atNanos: Int64

    /// Set on the entry that stands for a compacted run: its `content` is the summary and `id`
    /// the compaction's id; this says what it replaced, who made it and when.
    public internal(set) var compaction: Compaction? = nil
    /// Set on an original shown with `includeCompacted`: the compaction that replaces it.
    public internal(set) var compactedBy: String? = nil

    public var at: String { Timestamp.iso8601(nanos: atNanos) }

    /// The entry that stands for compaction `c` in the messages view.
    init(summaryOf c: Compaction) {
        self.init(id: c.id, role: c.summaryRole, content: c.summary, toolCalls: nil, toolCallId: nil, atNanos: c.atNanos)
        var shown = c
        shown.originals = nil  // where the originals sit on disk is not part of the message
        compaction = shown
    }

    init(id: String, role: MessageRole, content: JSON, toolCalls: JSON?, toolCallId: String?, metadata: JSON? = nil,
         atNanos: Int64) {
        self.id = id
        self.role = role
        self.content = content
        self.toolCalls = toolCalls
        self.toolCallId = toolCallId
        self.metadata = metadata
        self.atNanos = atNanos
    }
}

/// A message's journal record: the protocol's names, its time as an integer; `toolCalls` that
/// are `null` and `metadata` that is not an object read as absent, a missing time as 0.
extension Message: StoredForm {
    static let storedFields: [StoredField<Message>] = [
        .required("id", \.id), .required("role", \.role), .required("content", \.content),
        .optional("toolCalls", \.toolCalls, accept: { !$0.isNull }), .optional("toolCallId", \.toolCallId),
        .optional("metadata", \.metadata, accept: { $0.objectValue != nil }), .always("at", \.atNanos, else: 0),
    ]
    static var unread: Message { Message(id: "", role: .user, content: .null, toolCalls: nil, toolCallId: nil, atNanos: 0) }
}

/// A message to append. Without an `id` the store gives it one; with an `id` the store keeps
/// it only if no message with that id is stored already (so a retried append stores nothing
/// twice).
public struct MessageInput: Sendable, Equatable {
    public var id: String?
    public var role: MessageRole
    public var content: JSON
    public var toolCalls: JSON?
    public var toolCallId: String?
    /// A JSON object (or nothing); over `metadataLimit` bytes encoded, the append is `TooLarge`.
    public var metadata: JSON?

    /// The most bytes a message's (or a session's) metadata may take, encoded.
    public static let metadataLimit = 64 << 10

    public init(id: String? = nil, role: MessageRole, content: JSON, toolCalls: JSON? = nil, toolCallId: String? = nil,
                metadata: JSON? = nil) {
        self.id = id
        self.role = role
        self.content = content
        self.toolCalls = toolCalls
        self.toolCallId = toolCallId
        self.metadata = metadata
    }
}

extension SessionError {
    /// `TooLarge` when `metadata` takes more than `MessageInput.metadataLimit` bytes encoded.
    static func checkMetadataSize(_ metadata: JSON?, _ what: String) throws(SessionError) {
        guard let metadata else { return }
        let n = JSONCodec.encode(metadata).count
        guard n <= MessageInput.metadataLimit else {
            throw SessionError(.tooLarge, "\(what) metadata takes \(n) bytes, over the limit of \(MessageInput.metadataLimit)",
                               .tooLarge(limit: Int64(MessageInput.metadataLimit), size: Int64(n)))
        }
    }
}
