@testable import AgentSessions
import JSON
import Testing
@testable import ACPFace

@Suite("ACP records")
struct ACPRecordsTests {
    @Test("a title is the first line of the first text block, trimmed, at most 80 characters")
    func title() {
        #expect(ACPRecords.title(fromPrompt: [["type": "image", "data": "x"], ["type": "text", "text": "  Fix the build \nand more"]]) == "Fix the build")
        #expect(ACPRecords.title(fromPrompt: [["type": "text", "text": "   "]]) == nil)
        let long = String(repeating: "a", count: 100)
        #expect(ACPRecords.title(fromPrompt: [["type": "text", "text": .string(long)]])?.count == 80)
    }

    @Test("updates get the role of their kind, and replay gives prompts back as user chunks and updates verbatim")
    func rolesAndReplay() {
        let chunk: JSON = ["sessionUpdate": "agent_message_chunk", "content": ["type": "text", "text": "hi"], "_meta": ["k": 1]]
        #expect(ACPRecords.update(chunk).role == .assistant)
        #expect(ACPRecords.update(["sessionUpdate": "tool_call_update", "toolCallId": "t"]).role == .tool)
        #expect(ACPRecords.update(["sessionUpdate": "plan", "entries": []]).role == .system)
        let stored = { (m: MessageInput) in Message.stub(m) }
        #expect(ACPRecords.replay(stored(ACPRecords.update(chunk))) == [chunk])
        let prompt: JSON = [["type": "text", "text": "a"], ["type": "text", "text": "b"]]
        #expect(ACPRecords.replay(stored(ACPRecords.prompt(prompt))) == [
            ["sessionUpdate": "user_message_chunk", "content": ["type": "text", "text": "a"]],
            ["sessionUpdate": "user_message_chunk", "content": ["type": "text", "text": "b"]],
        ])
        #expect(ACPRecords.replay(stored(ACPRecords.stop(result: ["stopReason": "end_turn"], error: nil))).isEmpty)
    }

    @Test("the handover names prompts, the agent's text and each tool call with its last status")
    func handover() {
        let messages = [
            ACPRecords.prompt([["type": "text", "text": "read it"]]),
            ACPRecords.update(["sessionUpdate": "tool_call", "toolCallId": "t1", "title": "Read a.md", "status": "pending"]),
            ACPRecords.update(["sessionUpdate": "agent_message_chunk", "content": ["type": "text", "text": "done "]]),
            ACPRecords.update(["sessionUpdate": "agent_message_chunk", "content": ["type": "text", "text": "reading"]]),
            ACPRecords.update(["sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": "completed"]),
        ].map(Message.stub)
        let text = ACPRecords.handover(messages)?["text"]?.stringValue ?? ""
        #expect(text.hasPrefix("[workspace-bridge] This session continues an earlier conversation."))
        #expect(text.hasSuffix("User: read it\n\n[tool call: Read a.md (completed)]\n\nAgent: done reading"))
        #expect(ACPRecords.handover([]) == nil)
    }
}

extension Message {
    /// A stored message as the store gives it back (its stored form read back).
    static func stub(_ m: MessageInput) -> Message {
        Message(stored: ["id": "msg_1", "role": .string(m.role.rawValue), "content": m.content, "at": 1])!
    }
}
