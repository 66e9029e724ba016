import JSON
import JSONRPC

/// The agent's side: starting it, its messages, and its death.
extension ACPProxy {
    /// Runs `body` once an agent is running and initialized (starting one with the editor's
    /// `initialize` when none is); fails `id` with `AgentUnavailable` when none can be.
    func withAgent(failing id: RequestID, _ method: String, _ body: @escaping () -> Void) {
        guard toAgent.count < Self.pendingLimit else { return failEditor(id, ACPErrors.busy(limit: Self.pendingLimit)) }
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
        do {
            agent = try AgentProcess(command: configuration.agentCommand, generation: run,
                                     maxMessageBytes: configuration.maxMessageBytes,
                                     onMessage: { m in self.loop.sync { self.fromAgent(m, run: run) } },
                                     onExit: { why in self.loop.async { self.agentExited(why, run: run) } })
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

    func fromAgent(_ message: JSON, run: Int) {
        guard run == generation else { return }
        switch IncomingMessage(message) {
        case .request(let id, let method, let params):
            guard toEditor.count < Self.pendingLimit else {
                return toAgentSide(OutgoingMessage.error(id: id, ACPErrors.busy(limit: Self.pendingLimit)))
            }
            let k = nextEditorId
            nextEditorId += 1
            var p = params
            let sid = mapToEditor(&p)
            if method == "session/request_permission", let sid, let params,
               answeredByPolicy(session: sid, agentId: id.json, params: params, extra: Self.extras(message)) { return }
            if let sid, servedFile(method, agentId: id.json, session: sid, params: p ?? [:]) { return }
            toEditor[k] = PendingToEditor(agentId: id.json, generation: run, method: method, session: sid,
                                          params: method == "session/request_permission" ? params : nil)
            var o = Self.extras(message)
            o["jsonrpc"] = "2.0"
            o["id"] = .int(k)
            o["method"] = .string(method)
            if let p { o["params"] = p }
            let records = method == "session/request_permission" ? params.map { [ACPRecords.permission($0)] } ?? [] : []
            toEditorSide(.object(o), session: sid, records: records)
        case .notification(let method, let params):
            if method == "session/update", let agentSid = params?["sessionId"]?.stringValue, muted.contains(agentSid) { return }
            var p = params
            if method == "$/cancel_request", let rid = p?["requestId"], var o = p?.objectValue {
                guard let k = toEditor.first(where: { $0.value.agentId == rid && $0.value.generation == run })?.key else { return }
                o["requestId"] = .int(k)
                p = .object(o)
            }
            let sid = mapToEditor(&p)
            var o = Self.extras(message)
            o["jsonrpc"] = "2.0"
            o["method"] = .string(method)
            if let p { o["params"] = p }
            let records = method == "session/update" && sid != nil ? (p?["update"]).map { [ACPRecords.update($0)] } ?? [] : []
            if method == "session/update", let sid, let update = p?["update"] { noteUpdate(sid, update) }
            toEditorSide(.object(o), session: sid, records: records)
        case .response(let id, let result, let error):
            guard case .int(let n)? = id, let pending = toAgent.removeValue(forKey: n) else {
                logger.warning("acp: the agent answered a request we did not make (id \(id?.description ?? "null"))")
                return
            }
            agentAnswered(pending, result: result, error: error, extra: Self.extras(message))
        case .invalid(_, let e):
            logger.warning("acp: the agent sent an invalid message: \(e.message)")
        }
    }

    /// Rewrites `params.sessionId` from the agent's id to ours; returns ours (nil: not a session of ours).
    private func mapToEditor(_ params: inout JSON?) -> String? {
        guard let agentSid = params?["sessionId"]?.stringValue, let sid = ours[agentSid], var o = params?.objectValue else { return nil }
        o["sessionId"] = .string(sid)
        params = .object(o)
        return sid
    }

    private func agentAnswered(_ pending: PendingToAgent, result: JSON?, error: JSON?, extra: JSONObject) {
        switch pending {
        case .proxy(let then):
            then(error.map { .failure(AgentError($0)) } ?? .success(result ?? .null))
        case .editor(let id, let method, let session):
            var o = extra
            o["jsonrpc"] = "2.0"
            o["id"] = id.json
            if let error { o["error"] = error } else { o["result"] = result ?? .null }
            let records = method == "session/prompt" ? [ACPRecords.stop(result: result, error: error)] : []
            if method == "session/prompt", let session, let result, error == nil { countTurn(session, result: result) }
            toEditorSide(.object(o), session: session, records: records)
        }
    }

    /// The agent is gone: every request it owed is answered with `AgentUnavailable` (a prompt's
    /// end journaled as such), and the sessions it had will be attached again by the next run.
    func agentExited(_ why: String, run: Int) {
        guard run == generation else { return }
        logger.warning("acp: the agent \(why)")
        agent = nil
        agentReady = false
        attached = [:]
        ours = [:]
        muted = []
        let owed = toAgent
        toAgent = [:]
        for (_, p) in owed.sorted(by: { $0.key < $1.key }) {
            switch p {
            case .proxy(let then):
                then(.failure(AgentError(ACPErrors.agentUnavailable(why, method: "a request of the proxy"))))
            case .editor(let id, let method, let session):
                let e = ACPErrors.agentUnavailable(why, method: method)
                let records = method == "session/prompt" ? [ACPRecords.stop(result: nil, error: e.json)] : []
                toEditorSide(OutgoingMessage.error(id: id, e), session: session, records: records)
            }
        }
        finishStarting(.failure(.internalError("the agent \(why) while starting")))
    }
}
