import AgentSessions
import JSON

/// How ACP traffic is kept in one of our sessions, and how it comes back out.
///
/// Every record is a message whose `content` is an object with `acp` naming its kind:
/// `prompt` (role user: the prompt's content blocks, as the editor sent them), `update` (the
/// `session/update`'s `update` object verbatim; role user, assistant, tool or system by its
/// `sessionUpdate`), `permission` (role tool: the agent's request, `toolCall` and `options`),
/// `permissionOutcome` (role tool: the `outcome`, or the error the editor answered with; `by`
/// `editor`, or `policy` when the session's approval policy answered) and
/// `stop` (role system: the turn's `stopReason`, or the error that ended it). Replay gives back
/// prompts as `user_message_chunk` updates and updates unchanged, in journal order.
enum ACPRecords {
    static func prompt(_ blocks: JSON) -> MessageInput {
        MessageInput(role: .user, content: ["acp": "prompt", "prompt": blocks])
    }

    static func update(_ update: JSON) -> MessageInput {
        let role: MessageRole
        switch update["sessionUpdate"]?.stringValue ?? "" {
        case "user_message_chunk": role = .user
        case "agent_message_chunk", "agent_thought_chunk": role = .assistant
        case "tool_call", "tool_call_update": role = .tool
        default: role = .system
        }
        return MessageInput(role: role, content: ["acp": "update", "update": update])
    }

    static func permission(_ params: JSON) -> MessageInput {
        var request: JSONObject = [:]
        for key in ["toolCall", "options", "_meta"] { if let v = params[key] { request[key] = v } }
        return MessageInput(role: .tool, content: ["acp": "permission", "request": .object(request)])
    }

    static func permissionOutcome(result: JSON?, error: JSON?, by: String = "editor") -> MessageInput {
        var o: JSONObject = ["acp": "permissionOutcome", "by": .string(by)]
        if let outcome = result?["outcome"] { o["outcome"] = outcome }
        if let error { o["error"] = error }
        return MessageInput(role: .tool, content: .object(o))
    }

    static func stop(result: JSON?, error: JSON?) -> MessageInput {
        var o: JSONObject = ["acp": "stop"]
        if let reason = result?["stopReason"] { o["stopReason"] = reason }
        if let error { o["error"] = error }
        return MessageInput(role: .system, content: .object(o))
    }

    /// The `session/update` payloads that replay a stored message (none for permissions and
    /// stops). A compacted run (compacted by a front end) replays as its summary: one
    /// `agent_message_chunk` reading "[summary of the earlier conversation] …".
    static func replay(_ m: Message) -> [JSON] {
        if m.compaction != nil {
            let text = m.content.stringValue
                ?? (m.content.arrayValue ?? []).compactMap { $0["text"]?.stringValue }.joined(separator: "\n")
            return [["sessionUpdate": "agent_message_chunk",
                     "content": ["type": "text", "text": .string("[summary of the earlier conversation] " + text)]]]
        }
        switch m.content["acp"]?.stringValue {
        case "prompt":
            return (m.content["prompt"]?.arrayValue ?? []).map { ["sessionUpdate": "user_message_chunk", "content": $0] }
        case "update":
            return m.content["update"].map { [$0] } ?? []
        default:
            return []
        }
    }

    /// A title from a prompt: the first line of its first text block, at most 80 characters.
    static func title(fromPrompt blocks: JSON) -> String? {
        guard let text = blocks.arrayValue?.first(where: { $0["type"]?.stringValue == "text" })?["text"]?.stringValue else { return nil }
        let line = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        let trimmed = String(line.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
        guard !trimmed.isEmpty else { return nil }
        return trimmed.count > 80 ? String(trimmed.prefix(79)) + "…" : trimmed
    }

    /// The history handed to an agent that starts the session afresh (it cannot load it): one
    /// text block, put before the first prompt it gets, reading
    /// "[workspace-bridge] This session continues an earlier conversation. …" then, in order,
    /// `User:` for each prompt's text, `Agent:` for the agent's message text, and
    /// `[tool call: <title> (<last status>)]` for each tool call. Nil when there is nothing to hand.
    static func handover(_ messages: [Message]) -> JSON? {
        var lines: [String] = []
        var agentText = ""
        var tools: [String: (line: Int, title: String, status: String)] = [:]
        func endAgent() { if !agentText.isEmpty { lines.append("Agent: " + agentText); agentText = "" } }
        func toolLine(_ t: (line: Int, title: String, status: String)) -> String { "[tool call: \(t.title) (\(t.status))]" }
        for m in messages {
            switch m.content["acp"]?.stringValue {
            case "prompt":
                endAgent()
                let texts = (m.content["prompt"]?.arrayValue ?? []).compactMap { $0["text"]?.stringValue }
                if !texts.isEmpty { lines.append("User: " + texts.joined(separator: "\n")) }
            case "update":
                guard let u = m.content["update"] else { continue }
                let id = u["toolCallId"]?.stringValue ?? ""
                switch u["sessionUpdate"]?.stringValue {
                case "agent_message_chunk": agentText += u["content"]?["text"]?.stringValue ?? ""
                case "tool_call":
                    endAgent()
                    let t = (line: lines.count, title: u["title"]?.stringValue ?? "untitled", status: u["status"]?.stringValue ?? "pending")
                    tools[id] = t
                    lines.append(toolLine(t))
                case "tool_call_update":
                    guard var t = tools[id] else { continue }
                    if let title = u["title"]?.stringValue { t.title = title }
                    if let status = u["status"]?.stringValue { t.status = status }
                    tools[id] = t
                    lines[t.line] = toolLine(t)
                default: continue
                }
            default: continue
            }
        }
        endAgent()
        guard !lines.isEmpty else { return nil }
        let text = "[workspace-bridge] This session continues an earlier conversation. The agent that had it is gone; "
            + "here it is as the user saw it:\n\n" + lines.joined(separator: "\n\n")
        return ["type": "text", "text": .string(text)]
    }
}
