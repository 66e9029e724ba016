import AgentSessions
import JSON
import JSONRPC

// The protocol's readings of the session values a request carries as list items (a message to
// append, a pending tool call a front end declares), declared with the methods that take them:
// `AgentSessions` takes the typed values. A refusal is `-32602` naming the item
// (`messages[2]`) and saying what was wrong.

extension MessageInput {
    /// One element of `session/appendMessages`' `messages`.
    init(param json: JSON, field: String) throws(RPCError) {
        func refuse(_ why: String) -> RPCError { .invalidParams(field: field, expected: why, got: json.typeName) }
        guard case .object(let o) = json else { throw refuse("a message must be an object, got \(json.typeName)") }
        var id: String?
        if let v = o["id"], !v.isNull {
            guard let s = v.stringValue, !s.isEmpty else { throw refuse("message id must be a non-empty string") }
            id = s
        }
        guard let r = o["role"]?.stringValue, let role = MessageRole(rawValue: r) else {
            throw refuse("message role must be one of user, assistant, system, tool")
        }
        guard let content = o["content"] else { throw refuse("a message needs content") }
        var toolCallId: String?
        if let t = o["toolCallId"], !t.isNull {
            guard let s = t.stringValue else { throw refuse("toolCallId must be a string") }
            toolCallId = s
        }
        var toolCalls: JSON?
        if let c = o["toolCalls"], !c.isNull { toolCalls = c }
        var metadata: JSON?
        if let md = o["metadata"], !md.isNull {
            guard md.objectValue != nil else { throw refuse("message metadata must be an object, got \(md.typeName)") }
            metadata = md
        }
        self.init(id: id, role: role, content: content, toolCalls: toolCalls,
                  toolCallId: toolCallId, metadata: metadata)
    }
}

extension ToolCallRecord {
    /// One pending tool call as a front end declares it in `session/checkpoint`: `{toolCallId |
    /// id, name, arguments}`, or the OpenAI shape `{id, function: {name, arguments}}`.
    init(declared json: JSON, field: String) throws(RPCError) {
        func refuse(_ why: String) -> RPCError { .invalidParams(field: field, expected: why, got: json.typeName) }
        guard case .object(let o) = json else { throw refuse("a pending tool call must be an object") }
        let fn = o["function"]?.objectValue
        guard let id = (o["toolCallId"] ?? o["id"])?.stringValue, !id.isEmpty else {
            throw refuse("a pending tool call needs a toolCallId")
        }
        guard let name = (o["name"] ?? fn?["name"])?.stringValue else { throw refuse("pending tool call \(id) needs a name") }
        self.init(toolCallId: id, name: name, arguments: o["arguments"] ?? fn?["arguments"] ?? .object([:]))
    }
}

extension Array {
    /// Each item of an array param read by `read`, which names it `key[i]` in a refusal.
    init(items: [JSON], of key: String, _ read: (JSON, String) throws(RPCError) -> Element) throws(RPCError) {
        self = []
        reserveCapacity(items.count)
        for (i, item) in items.enumerated() { append(try read(item, "\(key)[\(i)]")) }
    }
}
