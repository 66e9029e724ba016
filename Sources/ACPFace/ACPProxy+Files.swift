import AgentSessions
import JSON
import JSONRPC
import Workspace

/// The agent's `fs/read_text_file` and `fs/write_text_file`: the editor's when it advertised
/// them (forwarded), otherwise served by the proxy from the workspace (the agent is always told
/// the client can do both).
///
/// Guarantees, when served here: the path must be absolute and name a file inside the active
/// root (`OutsideWorkspace` otherwise); the workspace refuses `..`, links, special files and
/// reserved folders as it does for every face; a read is of UTF-8 text (`NotText`), at most
/// `maxMessageBytes`, from `line` (1-based) for `limit` lines; a write is crash-safe (the file
/// wholly old or wholly new) and creates missing folders. Both are journaled in the session as
/// tool calls named `fs/read_text_file` (one `read` record) and `fs/write_text_file` (intent,
/// then result). A write weighs the session's approval policy by its effect (replacing an
/// existing file, or adding a new one) when the session was made with `--approval-policy`; when
/// the policy asks, the editor is asked with `session/request_permission` (journaled with its
/// outcome as the agent's are), and a refusal answers the agent `ApprovalDenied`.
extension ACPProxy {
    /// Serves the agent's request `method` on session `sid` unless the editor does; false: forward it.
    func servedFile(_ method: String, agentId: RequestID, session sid: String, params: JSON) -> Bool {
        guard method == "fs/read_text_file" || method == "fs/write_text_file" else { return false }
        let capability = method == "fs/read_text_file" ? "readTextFile" : "writeTextFile"
        if editorInitialize?["clientCapabilities"]?["fs"]?[capability]?.boolValue == true { return false }
        let answer: (Result<JSON, RPCError>) -> Void = { r in
            self.toAgentSide { peer in
                switch r {
                case .success(let v): peer.respond(agentId, v)
                case .failure(let e): peer.fail(agentId, e)
                }
            }
        }
        guard let path = params["path"]?.stringValue, path.hasPrefix("/") else {
            answer(.failure(ACPErrors.invalidParams("path", "an absolute path")))
            return true
        }
        guard let relative = inside.fileRelative(path), let wp = try? WorkspacePath(relative) else {
            answer(.failure(RPCError(code: -32803, message: "\(path) is not a file inside the workspace (\(inside.root))",
                                     dataCode: "OutsideWorkspace", data: ["field": "path", "path": .string(path)])))
            return true
        }
        let callId = newCallId()
        if method == "fs/read_text_file" {
            answer(readText(wp, params, session: sid, callId: callId))
            return true
        }
        guard let content = params["content"]?.stringValue else {
            answer(.failure(ACPErrors.invalidParams("content", "a string")))
            return true
        }
        let exists = (try? workspace().status(wp)) != nil
        let arguments: JSON = ["path": .string(relative)]
        let write = { answer(self.writeText(wp, content, session: sid, callId: callId, arguments: arguments)) }
        guard isGated(sid) else { write(); return true }
        let facts = ToolFacts(name: method, effect: exists ? .replaces : .adds)
        let check: ApprovalCheck
        do throws(SessionError) {
            check = try store.checkApproval(id: sid, toolCallId: callId, tool: facts, arguments: arguments, origin: "acp")
        } catch {
            answer(.failure(ACPErrors.store(error)))
            return true
        }
        switch check {
        case .notNeeded, .allowed: write()
        case .denied: answer(.failure(Self.denied(path)))
        case .pending:
            askEditor(session: sid, callId: callId, title: "\(exists ? "Overwrite" : "Create") \(relative)", path: path) { allowed in
                if allowed { write() } else { answer(.failure(Self.denied(path))) }
            }
        }
        return true
    }

    private static func denied(_ path: String) -> RPCError {
        RPCError(code: -32803, message: "Writing \(path) was not approved", dataCode: "ApprovalDenied", data: ["path": .string(path)])
    }

    private func readText(_ wp: WorkspacePath, _ params: JSON, session sid: String, callId: String) -> Result<JSON, RPCError> {
        let result: Result<JSON, RPCError>
        do throws(WorkspaceError) {
            let r = try workspace().read(wp, maxBytes: Int64(configuration.maxMessageBytes))
            guard let text = String(validating: r.bytes, as: UTF8.self) else {
                throw WorkspaceError(.notText, "\(wp) is not UTF-8 text", path: wp.description)
            }
            result = .success(["content": .string(Self.lines(text, from: params["line"]?.intValue, limit: params["limit"]?.intValue))])
        } catch {
            result = .failure(ACPErrors.workspace(error))
        }
        var meta: JSON = ["path": .string(wp.description)]
        if case .failure(let e) = result { meta = ["path": .string(wp.description), "error": e.json] }
        do throws(SessionError) {
            try store.recordReadOnlyToolCall(id: sid, toolCallId: callId, name: "fs/read_text_file", arguments: ["path": .string(wp.description)],
                                             result: meta, isError: { if case .failure = result { return true } else { return false } }())
        } catch {
            logger.warning("acp: session \(sid): a read was not journaled: \(error.message)")
        }
        return result
    }

    private func writeText(_ wp: WorkspacePath, _ content: String, session sid: String, callId: String,
                           arguments: JSON) -> Result<JSON, RPCError> {
        do throws(SessionError) {
            _ = try store.beginToolCall(id: sid, toolCallId: callId, name: "fs/write_text_file", arguments: arguments)
        } catch {
            return .failure(ACPErrors.store(error))  // not journaled: not done
        }
        let result: Result<JSON, RPCError>
        do throws(WorkspaceError) {
            let status = try workspace().save(wp, contents: Array(content.utf8))
            result = .success([:])
            finish(sid, callId, ["path": .string(wp.description), "size": .int(status.size)], isError: false)
        } catch {
            result = .failure(ACPErrors.workspace(error))
            finish(sid, callId, ["path": .string(wp.description), "error": ACPErrors.workspace(error).json], isError: true)
        }
        return result
    }

    private func finish(_ sid: String, _ callId: String, _ result: JSON, isError: Bool) {
        do throws(SessionError) { try store.finishToolCall(id: sid, toolCallId: callId, result: result, isError: isError) } catch {
            logger.warning("acp: session \(sid): the end of \(callId) was not journaled: \(error.message)")
        }
    }

    /// `limit` lines of `text` from line `from` (1-based; the whole text without either).
    static func lines(_ text: String, from: Int64?, limit: Int64?) -> String {
        guard from != nil || limit != nil else { return text }
        let all = text.split(separator: "\n", omittingEmptySubsequences: false)
        let start = min(all.count, max(0, Int(clamping: (from ?? 1) - 1)))
        let end = limit.map { min(all.count, start + max(0, Int(clamping: $0))) } ?? all.count
        return all[start..<end].joined(separator: "\n")
    }
}

extension ACPProxy {
    /// The active root's files (opened once, never bootstrapped: the root exists).
    func workspace() throws(WorkspaceError) -> Workspace {
        if let files { return files }
        let w = try Workspace(rootPath: configuration.workspaceRoot, bootstrap: false)
        files = w
        return w
    }

    /// Asks the editor, as an agent would, whether a call the policy leaves to the user may run;
    /// the request and its outcome are journaled, and the decision recorded (an `_always` option
    /// remembers it). `then` gets true for an allowing option.
    func askEditor(session sid: String, callId: String, title: String, path: String, then: @escaping (Bool) -> Void) {
        let options: JSON = [
            ["optionId": "allow", "name": "Allow", "kind": "allow_once"],
            ["optionId": "always", "name": "Always allow", "kind": "allow_always"],
            ["optionId": "reject", "name": "Reject", "kind": "reject_once"],
        ]
        let params: JSON = ["sessionId": .string(sid), "options": options,
                            "toolCall": ["toolCallId": .string(callId), "title": .string(title), "kind": "edit",
                                         "status": "pending", "locations": [["path": .string(path)]]]]
        let then = LoopBound(then, on: loop)
        let (_, request) = editor.request("session/request_permission", params) { reply in
            self.onLoop {
                self.recordDecision(session: sid, request: params, result: reply.result)
                let chosen = reply.result?["outcome"]?["optionId"]
                let kind = options.arrayValue?.first { $0["optionId"] == chosen }?["kind"]?.stringValue ?? ""
                self.outbox.post(Outbox.Item(records: [(sid, ACPRecords.permissionOutcome(result: reply.result, error: reply.error))], send: {}))
                then.value(kind.hasPrefix("allow"))
            }
        }
        toEditorSide(request, session: sid, records: [ACPRecords.permission(params)])
    }
}
