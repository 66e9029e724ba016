import AgentSessions
import JSON
import JSONRPC

/// Giving a session of ours to the running agent, and the methods that need it.
extension ACPProxy {
    /// Runs `body` with the agent's id for session `sid`, attaching it first when the running
    /// agent does not have it (after a restart, or a proxy started anew).
    func withSession(_ sid: String, failing id: RequestID, _ method: String, _ body: @escaping (String) -> Void) {
        withAgent(failing: id, method) {
            self.attach(sid, resume: true) { result in
                switch result {
                case .success: body(self.attached[sid] ?? "")
                case .failure(let e): self.failEditor(id, e)
                }
            }
        }
    }

    /// Attaches `sid` to the running agent: by the agent's `session/resume` (when `resume` and it
    /// can), else its `session/load` (its replay is not shown to the editor again: ours was),
    /// else a fresh `session/new` whose first prompt gets the history (`ACPRecords.handover`).
    /// `then` gets the agent's answer (its `modes`, `configOptions`…).
    func attach(_ sid: String, resume: Bool, then: @escaping (Result<JSON, RPCError>) -> Void) {
        if attached[sid] != nil { return then(.success([:])) }
        if attaching[sid] != nil {
            attaching[sid]?.append({ r in then(r.map { [:] }) })
            return
        }
        let session: Session
        do throws(SessionError) { session = try store.get(id: sid) } catch { return then(.failure(ACPErrors.store(error))) }
        guard let info = ACPSessionInfo(session) else {
            return then(.failure(ACPErrors.invalidParams("sessionId", "a session started through the ACP face (it has no cwd)")))
        }
        attaching[sid] = []
        let finish: (Result<JSON, RPCError>) -> Void = { r in
            let waiting = self.attaching.removeValue(forKey: sid) ?? []
            then(r)
            for w in waiting { w(r.map { _ in () }) }
        }
        var params = sessionSetup[sid]?.objectValue ?? ["mcpServers": .array([])]
        for (k, v) in info.paths(inside).members where k == "cwd" || params[k] == nil { params[k] = v }
        let fresh: () -> Void = {
            var p = params
            p["sessionId"] = nil
            self.requestAgent("session/new", self.offeringMCP(.object(p), session: sid), pending: .proxy({ r in
                switch r {
                case .success(let answer):
                    guard let agentSid = answer["sessionId"]?.stringValue else {
                        return finish(.failure(.internalError("the agent's session/new answer has no sessionId")))
                    }
                    self.bind(sid, agentSid)
                    self.costStartsAfresh(sid)
                    self.handoverDue.insert(sid)
                    var o = answer.objectValue ?? [:]
                    o["sessionId"] = nil
                    finish(.success(.object(o)))
                case .failure(let e):
                    finish(.failure(ACPErrors.agentUnavailable(e.json["message"]?.stringValue ?? "session/new failed", method: "session/new")))
                }
            }))
        }
        // A fork's inherited agent session is its parent's: never reuse it (a fork starts afresh).
        guard let known = agentSessionIds[sid] ?? (session.lineage == nil ? info.agentSessionId : nil),
              (resume && agentCapabilities.resume) || agentCapabilities.loadSession else { return fresh() }
        let method = resume && agentCapabilities.resume ? "session/resume" : "session/load"
        params["sessionId"] = .string(known)
        if method == "session/load" { muted.insert(known) }
        requestAgent(method, offeringMCP(.object(params), session: sid), pending: .proxy({ r in
            self.muted.remove(known)
            switch r {
            case .success(let answer):
                self.bind(sid, known)
                self.costContinues(sid)
                finish(.success(answer))
            case .failure(let e):
                self.logger.notice("acp: the agent could not \(method) \(known) (\(e.json["message"]?.stringValue ?? "")); starting it afresh with the history")
                if self.agent == nil { return finish(.failure(ACPErrors.agentUnavailable("it exited", method: method))) }
                fresh()
            }
        }))
    }

    /// `session/load` (replay: the whole conversation as `session/update`s, in order, then the
    /// answer) and `session/resume` (no replay): served from our store, whatever the agent supports.
    func loadSession(_ id: RequestID, _ params: JSON, replay: Bool) {
        let method = replay ? "session/load" : "session/resume"
        guard let sid = params["sessionId"]?.stringValue else { return failEditor(id, ACPErrors.invalidParams("sessionId", "a string")) }
        if let refusal = inside.refusal(params) { return failEditor(id, refusal) }
        let messages: [Message]
        do throws(SessionError) {
            guard ACPSessionInfo(try store.get(id: sid)) != nil else {
                return failEditor(id, ACPErrors.invalidParams("sessionId", "a session started through the ACP face (it has no cwd)"))
            }
            messages = replay ? try allMessages(sid) : []
        } catch {
            return failEditor(id, ACPErrors.store(error))
        }
        sessionSetup[sid] = Self.setup(params)
        // The replay leaves as one item of the outbox: in order, before the answer, after
        // whatever was posted before it.
        let editor = self.editor
        let shown = messages.flatMap(ACPRecords.replay).map { update in
            editor.notification("session/update", ["sessionId": .string(sid), "update": update])
        }
        outbox.post { for n in shown { editor.send(n) } }
        withAgent(failing: id, method) {
            self.attach(sid, resume: !replay) { r in
                switch r {
                case .failure(let e): self.failEditor(id, e)
                case .success(let answer):
                    var o: JSONObject = [:]
                    for k in ["modes", "configOptions", "models"] { if let v = answer[k], !v.isNull { o[k] = v } }
                    self.answerEditor(id, .object(o))
                }
            }
        }
    }

    /// `session/close`: the agent lets go of it (when it can close sessions), and so does our store.
    func closeSession(_ id: RequestID, _ params: JSON) {
        guard let sid = params["sessionId"]?.stringValue else { return failEditor(id, ACPErrors.invalidParams("sessionId", "a string")) }
        guard isOurs(sid) else { return failEditor(id, ACPErrors.sessionNotFound(sid)) }
        detach(sid) {
            self.store.release(id: sid)
            self.answerEditor(id, [:])
        }
    }

    /// `session/delete`: gone from our store (and from the agent's, when it can delete sessions).
    func deleteSession(_ id: RequestID, _ params: JSON) {
        guard let sid = params["sessionId"]?.stringValue else { return failEditor(id, ACPErrors.invalidParams("sessionId", "a string")) }
        guard isOurs(sid) else { return failEditor(id, ACPErrors.sessionNotFound(sid)) }
        let agentSid = agentSessionIds[sid]
        detach(sid) {
            if let agentSid, self.agent != nil, self.agentCapabilities.delete {
                self.requestAgent("session/delete", ["sessionId": .string(agentSid)], pending: .proxy({ _ in }))
            }
            do throws(SessionError) { try self.store.delete(id: sid) } catch { return self.failEditor(id, ACPErrors.store(error)) }
            self.sessionSetup[sid] = nil
            self.agentSessionIds[sid] = nil
            self.answerEditor(id, [:])
        }
    }

    /// Takes `sid` from the running agent (its `session/close` when it has one); then `then`.
    private func detach(_ sid: String, then: @escaping () -> Void) {
        handoverDue.remove(sid)
        guard let agentSid = attached.removeValue(forKey: sid) else { return then() }
        ours[agentSid] = nil
        guard agent != nil, agentCapabilities.close else { return then() }
        requestAgent("session/close", ["sessionId": .string(agentSid)], pending: .proxy({ _ in then() }))
    }
}
