import AgentSessions
import BridgeServer
import JSON
import JSONRPC
import Synchronization
import SystemSupport

/// The session's approval policy on MCP's `tools/call`, both eras (docs/protocol.md, MCP face).
///
/// MCP has no tool call ids, so an approval is matched by tool name and a digest of the arguments:
/// a call asks the policy once (`SessionMethods.consent`, the gate `session/callTool` passes, the
/// approval recorded durably with `origin: "mcp"`); while that approval's call has not run, an
/// identical call is the same call — it waits for, runs under, or is refused by that decision.
///
/// - 2026-07-28 era: a client declaring `elicitation` gets `input_required` with one
///   `elicitation/create` and an HMAC-protected `requestState` (`MCPRequestState`); its retry
///   decides, then the call runs or answers `ApprovalDenied`.
/// - 2025 era: a client that declared `elicitation` at `initialize` is sent `elicitation/create`
///   and the worker waits for the answer at most `timeout` (never the reading thread).
/// - Any client that cannot be asked, or does not answer in time: an error result
///   (`ApprovalRequired`) naming the pending approval, for the host to answer with
///   `session/approve`; the same call again then runs or is refused.
final class MCPApprovals: Sendable {
    static let origin = "mcp"
    /// The key `requestState`s are signed with, random per process.
    let key: [UInt8] = (0..<32).map { _ in UInt8.random(in: 0 ... .max) }
    private let elicits2025 = Atomic<Bool>(false)

    /// Records whether the 2025 client declared `elicitation` (form mode) at `initialize`.
    func clientDeclaresElicitation(_ capabilities: JSONObject?) { elicits2025.store(Self.formElicitation(capabilities), ordering: .relaxed) }
    var clientElicits2025: Bool { elicits2025.load(ordering: .relaxed) }

    /// Whether client capabilities declare form elicitation (`elicitation: {}` means form).
    static func formElicitation(_ capabilities: JSONObject?) -> Bool {
        guard let e = capabilities?["elicitation"]?.objectValue else { return false }
        return e.isEmpty || e["form"] != nil
    }

    /// What the approval step lets `tools/call` do.
    enum Gate {
        /// Run the call, journaled under this id.
        case run(toolCallId: String)
        /// Answer this instead (nothing runs now).
        case answer(JSON)
    }

    /// Asks the session's policy for a call (no state from a retry): `.pending` when consent is needed.
    static func check(_ p: CallMCPTool.Params, _ tool: Tool, _ store: SessionStore, session: String,
                      _ call: Call) throws -> (toolCallId: String, consent: SessionMethods.Consent) {
        // The digest only when an approval of this tool is open (most calls never need one).
        var digest: String?
        let facts = tool.facts(p.arguments)
        let (open, policyAsks) = try store.openApproval(id: session, tool: facts) { arguments in
            if digest == nil { digest = try? MCPRequestState.digest(p.arguments) }
            return digest != nil && (try? MCPRequestState.digest(arguments)) == digest
        }
        let toolCallId = open?.toolCallId ?? CallMCPTool.newToolCallId(call)
        if open == nil && !policyAsks { return (toolCallId, .run) }
        return (toolCallId, try SessionMethods.consent(store, session: session, toolCallId: toolCallId, tool: tool,
                                                        arguments: p.arguments, origin: origin))
    }

    /// The decision an elicitation answer (`{action, content: {approve, remember?}}`) carries:
    /// allow only for `accept` with `approve: true`; `decline`, `cancel` or `approve: false` deny.
    /// Nil when the answer is not an elicitation result.
    static func decision(of answer: JSON) -> (Approval.Decision, remember: Bool)? {
        guard let action = answer["action"]?.stringValue, ["accept", "decline", "cancel"].contains(action) else { return nil }
        let content = answer["content"]?.objectValue
        let allowed = action == "accept" && content?["approve"]?.boolValue == true
        let remember = action == "accept" && content?["remember"]?.boolValue == true
        return (allowed ? .allow : .deny, remember)
    }

    /// Records `decision` unless someone (the host, through `session/approve`) decided first:
    /// then that decision stands.
    static func decide(_ store: SessionStore, session: String, _ approval: Approval, _ decision: Approval.Decision,
                       remember: Bool) throws {
        guard approval.decision == nil else { return }
        do {
            _ = try store.approve(id: session, toolCallId: approval.toolCallId, decision: decision, remember: remember)
        } catch let e where e.kind == .invalidArgument {
            // Decided the other way in between (another process): the recorded decision stands.
        }
    }

    /// The `elicitation/create` params asking for consent to `approval`'s call.
    static func elicitation(_ approval: Approval, session: String, modern: Bool) -> JSON {
        var args = JSONCodec.encodeString(approval.arguments)
        if args.utf8.count > 1000 { args = String(args.prefix(1000)) + "… (\(args.utf8.count) bytes in all)" }
        let warning = approval.effect == .replaces ? " It may overwrite, delete, move or replace existing content." : ""
        let message = "Allow the tool \(approval.name) to run with arguments \(args)?\(warning) (session \(session), approval \(approval.approvalId))"
        let schema: JSON = [
            "type": "object",
            "properties": [
                "approve": ["type": "boolean", "title": .string("Allow \(approval.name)"),
                            "description": .string("true runs \(approval.name) with these arguments once; false refuses it")],
                "remember": ["type": "boolean", "title": .string("Remember for \(approval.name)"), "default": false,
                             "description": .string("apply this decision to later calls of \(approval.name) in this session")],
            ],
            "required": ["approve"],
        ]
        var o: JSONObject = ["message": .string(message), "requestedSchema": schema]
        if modern { o["mode"] = "form" }
        return .object(o)
    }

    /// The error result of a call waiting for an approval nobody could answer here.
    static func required(_ approval: Approval, session: String, why: String) -> JSON {
        let message = "\(approval.name) needs the user's approval (\(approval.approvalId) in session \(session)); \(why) "
            + "Once the host answers it with session/approve, call \(approval.name) again with the same arguments: "
            + "it then runs, or is refused."
        let s: JSONObject = ["error": .string(message), "code": "ApprovalRequired", "approvalId": .string(approval.approvalId),
                             "toolCallId": .string(approval.toolCallId), "sessionId": .string(session)]
        return ToolResult(content: [ToolResult.text(message)], structuredContent: .object(s), isError: true).json
    }
}
