import AgentSessions
import JSON
import JSONRPC

/// The editor's messages: what the face serves itself, and how the rest is forwarded.
extension ACPProxy {
    func fromEditor(_ message: Peer.Incoming) {
        switch message {
        case .request(let id, let method, let params, let extras):
            editorRequest(id, method, params, extras)
        case .notification(let method, let params, let extras):
            editorNotification(method, params, extras)
        case .cancelled(let id, _):
            // The editor names its own id; the agent knows ours.
            guard agent != nil, agentReady, let mine = forwarded[id] else { return }
            toAgentSide({ $0.cancel(mine) })
        }
    }

    private func editorRequest(_ id: RequestID, _ method: String, _ params: JSON?, _ extra: JSONObject) {
        if method != "initialize", editorInitialize == nil {
            failEditor(id, ACPErrors.notInitialized(method))
            return
        }
        switch method {
        case "initialize": initialize(id, params ?? [:])
        case "session/new": newSession(id, params ?? [:], extra: extra)
        case "session/list": listSessions(id, params ?? [:])
        case "session/load": loadSession(id, params ?? [:], replay: true)
        case "session/resume": loadSession(id, params ?? [:], replay: false)
        case "session/close": closeSession(id, params ?? [:])
        case "session/delete": deleteSession(id, params ?? [:])
        case "session/fork": forkSession(id, params ?? [:])
        default:
            guard let params, let sid = params["sessionId"]?.stringValue, isOurs(sid) else {
                // Not a session of ours (or no session at all): through unchanged.
                withAgent(failing: id, method) {
                    self.requestAgent(method, params, pending: .editor(id: id, method: method, session: nil), extra: extra)
                }
                return
            }
            if method == "session/prompt", let refusal = budgetRefusal(sid) { return failEditor(id, refusal) }
            withSession(sid, failing: id, method) { agentSid in
                self.forwardSessionRequest(id, method, params, session: sid, agentSession: agentSid, extra: extra)
            }
        }
    }

    /// A request on one of our sessions, to the agent that has it. A prompt is journaled first
    /// (and names the session when it is its first), and carries the history when it is due.
    private func forwardSessionRequest(_ id: RequestID, _ method: String, _ params: JSON, session sid: String,
                                       agentSession: String, extra: JSONObject) {
        var p = params.objectValue ?? [:]
        p["sessionId"] = .string(agentSession)
        var records: [MessageInput] = []
        if method == "session/prompt", let prompt = params["prompt"] {
            records = [ACPRecords.prompt(prompt)]
            nameIfFirst(sid, prompt)
            if handoverDue.remove(sid) != nil, let history = handover(sid), case .array(let blocks) = prompt {
                p["prompt"] = .array([history] + blocks)
            }
        }
        requestAgent(method, .object(p), pending: .editor(id: id, method: method, session: sid), session: sid,
                     records: records, extra: extra)
    }

    private func editorNotification(_ method: String, _ params: JSON?, _ extra: JSONObject) {
        guard agent != nil, agentReady else { return }  // nothing is running that it could be about
        var p = params
        if let sid = params?["sessionId"]?.stringValue, isOurs(sid), var o = params?.objectValue {
            guard let agentSid = attached[sid] else { return }  // the running agent has not got it: nothing to cancel
            o["sessionId"] = .string(agentSid)
            p = .object(o)
        }
        toAgentSide({ $0.notification(method, p, extras: extra) })
    }

    /// Whether `sid` names a session of our store (the ids the editor knows).
    func isOurs(_ sid: String) -> Bool {
        attached[sid] != nil || sid.hasPrefix("sess_") && (try? store.get(id: sid)) != nil
    }

    /// Names the session after its first prompt (while it still has its default name).
    private func nameIfFirst(_ sid: String, _ prompt: JSON) {
        guard let title = ACPRecords.title(fromPrompt: prompt), let s = try? store.get(id: sid),
              s.title == ACPSessionInfo.defaultTitle else { return }
        do throws(SessionError) { _ = try store.setTitle(id: sid, title) } catch {
            logger.warning("acp: session \(sid) keeps its default title: \(error.message)")
        }
    }

    /// The session's history for an agent that starts it afresh (`ACPRecords.handover`).
    private func handover(_ sid: String) -> JSON? {
        (try? allMessages(sid)).flatMap(ACPRecords.handover)
    }

    /// Every stored message of a session, in order: in one call, so each journal record is
    /// decoded once (pages cut records that hold many messages, and each page decoded them again).
    func allMessages(_ sid: String) throws(SessionError) -> [Message] {
        try store.messages(id: sid, limit: .max)
    }
}
