import AgentSessions
import JSON
import JSONRPC

/// The agent's side: starting it, its messages, and its death.
extension ACPProxy {
    /// Runs `body` once an agent is running and initialized (starting one with the editor's
    /// `initialize` when none is); fails `id` with `AgentUnavailable` when none can be.
    func withAgent(failing id: RequestID, _ method: String, _ body: @escaping () -> Void) {
        guard (agent?.peer.pendingCount ?? 0) < Self.pendingLimit else { return failEditor(id, ACPErrors.busy(limit: Self.pendingLimit)) }
        ensureAgent { result in
            switch result {
            case .success: body()
            case .failure(let e): self.failEditor(id, ACPErrors.agentUnavailable(e.message, method: method))
            }
        }
    }

    /// Starts and initializes the agent unless it is running; `then` runs on `loop`.
    func ensureAgent(_ then: @escaping (Result<Void, RPCError>) -> Void) {
        if agent != nil, agentReady { return then(.success(())) }
        waitingForAgent.append(then)
        guard agent == nil else { return }  // starting: it will run `then`
        generation += 1
        let run = generation
        let editor = self.editor
        let outbox = self.outbox
        let options = Peer.Options(maxMessageBytes: configuration.maxMessageBytes, idPrefix: "wb-\(runId)-\(run)-",
                                   cancelMethod: "$/cancel_request", label: "the agent",
                                   admit: { outbox.waitForRoom(); editor.waitForRoom() })
        do {
            let started = try AgentProcess(command: configuration.agentCommand, generation: run, peerOptions: options, logger: logger,
                                           onIncoming: { m in self.loop.sync { self.fromAgent(m, run: run) } },
                                           onExit: { why in self.loop.async { self.agentExited(why, run: run) } })
            agent = started
            agentPeer.current = started.peer
        } catch {
            agent = nil
            finishStarting(.failure(.internalError("\(error)")))
            return
        }
        var params = editorInitialize?.objectValue ?? [:]
        params["protocolVersion"] = .int(ACPConfiguration.protocolVersion)
        // The proxy serves fs/* itself when the editor cannot (ACPProxy+Files).
        var caps = params["clientCapabilities"]?.objectValue ?? [:]
        var fs = caps["fs"]?.objectValue ?? [:]
        fs["readTextFile"] = true
        fs["writeTextFile"] = true
        caps["fs"] = .object(fs)
        params["clientCapabilities"] = .object(caps)
        requestAgent("initialize", .object(params), pending: .proxy({ result in
            switch result {
            case .success(let r):
                guard r["protocolVersion"]?.intValue == ACPConfiguration.protocolVersion else {
                    self.logger.error("acp: the agent answered initialize with protocol version \(r["protocolVersion"].map { "\($0)" } ?? "none"), not 1")
                    self.agent?.closeInput()
                    self.agent?.terminate()
                    self.finishStarting(.failure(.internalError("the agent does not speak ACP protocol version 1")))
                    return
                }
                self.agentInitialized(r)
                self.agentReady = true
                self.finishStarting(.success(()))
            case .failure(let e):
                self.finishStarting(.failure(.internalError("the agent refused initialize: \(e.json["message"]?.stringValue ?? "")")))
            }
        }))
    }

    private func finishStarting(_ result: Result<Void, RPCError>) {
        let waiting = waitingForAgent
        waitingForAgent = []
        for w in waiting { w(result) }
    }

    func fromAgent(_ message: Peer.Incoming, run: Int) {
        guard run == generation, let peer = agent?.peer else { return }
        switch message {
        case .request(let id, let method, let params, let extras):
            guard editor.pendingCount < Self.pendingLimit else {
                return toAgentSide({ $0.fail(id, ACPErrors.busy(limit: Self.pendingLimit)) })
            }
            var p = params
            let sid = mapToEditor(&p)
            if method == "session/request_permission", let sid, let params,
               answeredByPolicy(session: sid, agentId: id, params: params, extra: extras) { return }
            if let sid, servedFile(method, agentId: id, session: sid, params: p ?? [:]) { return }
            let (mine, request) = editor.request(method, p, extras: extras) { reply in
                self.onLoop { self.editorAnswered(reply, agentId: id, run: run, peer: peer, method: method, session: sid, params: params) }
            }
            relayed[id] = mine
            let records = method == "session/request_permission" ? params.map { [ACPRecords.permission($0)] } ?? [] : []
            toEditorSide(request, session: sid, records: records)
        case .cancelled(let id, _):
            guard let mine = relayed[id], let cancel = editor.cancel(mine) else { return }
            toEditorSide(cancel)
        case .notification(let method, let params, let extras):
            if method == "session/update", let agentSid = params?["sessionId"]?.stringValue, muted.contains(agentSid) { return }
            var p = params
            let sid = mapToEditor(&p)
            let records = method == "session/update" && sid != nil ? (p?["update"]).map { [ACPRecords.update($0)] } ?? [] : []
            if method == "session/update", let sid, let update = p?["update"] { noteUpdate(sid, update) }
            toEditorSide(editor.notification(method, p, extras: extras), session: sid, records: records)
        }
    }

    /// The editor's answer to a request the agent made through us: back to that agent run, with
    /// its own id; a permission outcome is journaled first.
    private func editorAnswered(_ reply: Peer.Reply, agentId: RequestID, run: Int, peer: Peer, method: String, session: String?,
                                params: JSON?) {
        relayed[agentId] = nil
        guard run == generation, agent != nil else { return }  // that agent run is gone
        var records: [MessageInput] = []
        if method == "session/request_permission" {
            records = [ACPRecords.permissionOutcome(result: reply.result, error: reply.error)]
            if let sid = session, let request = params { recordDecision(session: sid, request: request, result: reply.result) }
        }
        let answer = reply.error.map { peer.fail(agentId, error: $0) } ?? peer.respond(agentId, reply.result ?? .null)
        toAgentSide({ _ in answer }, session: session, records: records)
    }

    /// Rewrites `params.sessionId` from the agent's id to ours; returns ours (nil: not a session of ours).
    private func mapToEditor(_ params: inout JSON?) -> String? {
        guard let agentSid = params?["sessionId"]?.stringValue, let sid = ours[agentSid], var o = params?.objectValue else { return nil }
        o["sessionId"] = .string(sid)
        params = .object(o)
        return sid
    }

    func agentAnswered(_ pending: PendingToAgent, _ reply: Peer.Reply) {
        switch pending {
        case .proxy(let then):
            then(reply.error.map { .failure(AgentError($0)) } ?? .success(reply.result ?? .null))
        case .editor(let id, let method, let session):
            forwarded[id] = nil
            let records = method == "session/prompt" ? [ACPRecords.stop(result: reply.result, error: reply.error)] : []
            if method == "session/prompt", let session, let result = reply.result, reply.error == nil { countTurn(session, result: result) }
            let answer = reply.error.map { editor.fail(id, error: $0, extras: reply.extras) }
                ?? editor.respond(id, reply.result ?? .null, extras: reply.extras)
            toEditorSide(answer, session: session, records: records)
        }
    }

    /// The agent is gone: every request it owed is answered with `AgentUnavailable` (a prompt's
    /// end journaled as such), and the sessions it had will be attached again by the next run.
    func agentExited(_ why: String, run: Int) {
        guard run == generation, let gone = agent else { return }
        logger.warning("acp: the agent \(why)")
        agent = nil
        agentReady = false
        attached = [:]
        ours = [:]
        muted = []
        agentPeer.current = nil
        relayed = [:]
        // Each request it owed gets `AgentUnavailable` (a prompt's end journaled as such: `agentAnswered`).
        gone.peer.failPending { method in ACPErrors.agentUnavailable(why, method: method) }
        finishStarting(.failure(.internalError("the agent \(why) while starting")))
    }
}
