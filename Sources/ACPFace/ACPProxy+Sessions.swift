import AgentSessions
import JSON
import JSONRPC

/// The session methods the face serves from our store, whatever the agent supports.
extension ACPProxy {
    func initialize(_ id: RequestID, _ params: JSON) {
        editorInitialize = params
        ensureAgent { result in
            switch result {
            case .success: self.answerEditor(id, self.initializeResult)
            case .failure(let e): self.failEditor(id, ACPErrors.agentUnavailable(e.message, method: "initialize"))
            }
        }
    }

    /// Records what the agent can do and makes our answer: its own, at version 1, plus
    /// `loadSession` and `sessionCapabilities` `list`, `resume`, `close`, `delete`, `fork`.
    func agentInitialized(_ r: JSON) {
        var caps = r["agentCapabilities"]?.objectValue ?? [:]
        var session = caps["sessionCapabilities"]?.objectValue ?? [:]
        func has(_ k: String) -> Bool { session[k]?.objectValue != nil }
        agentCapabilities = AgentCapabilities(loadSession: caps["loadSession"]?.boolValue ?? false,
                                              resume: has("resume"), close: has("close"), delete: has("delete"))
        caps["loadSession"] = true
        for k in ["list", "resume", "close", "delete", "fork"] where !has(k) { session[k] = .object([:]) }
        caps["sessionCapabilities"] = .object(session)
        var result = r.objectValue ?? [:]
        result["protocolVersion"] = .int(ACPConfiguration.protocolVersion)
        result["agentCapabilities"] = .object(caps)
        initializeResult = .object(result)
        agentName = r["agentInfo"]?["name"]?.stringValue ?? configuration.agentName
    }

    /// `session/new`: ours is made first (durably, so the MCP server offered in it can open it
    /// whenever the agent starts it), then the agent makes its own, whose id is then recorded in
    /// ours; the editor gets our id. When the agent refuses, ours is deleted and the editor gets
    /// the agent's error. `cwd` and `additionalDirectories` must be inside the active root (`InsideRoot`).
    func newSession(_ id: RequestID, _ params: JSON, extra: JSONObject) {
        if let refusal = inside.refusal(params) { return failEditor(id, refusal) }
        guard let cwd = params["cwd"]?.stringValue else { return }
        withAgent(failing: id, "session/new") {
            let policy = self.configuration.approvalPolicy
            let dirs = (params["additionalDirectories"]?.arrayValue ?? []).compactMap { $0.stringValue.flatMap(self.inside.relative) }
            var info = ACPSessionInfo(cwd: self.inside.relative(cwd) ?? "", directories: dirs, agentSessionId: nil, consent: policy != nil)
            let session: Session
            do throws(SessionError) {
                session = try self.store.create(title: ACPSessionInfo.defaultTitle, agentType: self.agentName,
                                                config: self.configuration.budget,
                                                metadata: .object(info.metadata(agent: self.agentName)),
                                                approvalPolicy: policy ?? .none)
            } catch {
                return self.failEditor(id, ACPErrors.store(error))
            }
            let sid = session.id
            self.requestAgent("session/new", self.offeringMCP(params, session: sid), pending: .proxy({ result in
                switch result {
                case .failure(let e):
                    do throws(SessionError) { try self.store.delete(id: sid) } catch {
                        self.logger.warning("acp: session \(sid), refused by the agent, stays: \(error.message)")
                    }
                    self.toEditorSide(self.editor.fail(id, error: e.json))
                case .success(let r):
                    guard let agentSid = r["sessionId"]?.stringValue else {
                        try? self.store.delete(id: sid)
                        return self.failEditor(id, .internalError("the agent's session/new answer has no sessionId"))
                    }
                    info.agentSessionId = agentSid
                    do throws(SessionError) { _ = try self.store.update(id: sid, metadata: info.metadata(agent: self.agentName)) } catch {
                        // The session works on; only a restarted proxy cannot ask the agent for its own session.
                        self.logger.warning("acp: session \(sid): the agent's session id was not recorded: \(error.message)")
                    }
                    self.bind(sid, agentSid)
                    self.costStartsAfresh(sid)
                    self.sessionSetup[sid] = Self.setup(params)
                    var o = r.objectValue ?? [:]
                    o["sessionId"] = .string(sid)
                    self.answerEditor(id, .object(o))
                }
            }), extra: extra)
        }
    }

    func bind(_ sid: String, _ agentSid: String) {
        attached[sid] = agentSid
        ours[agentSid] = sid
        agentSessionIds[sid] = agentSid
    }

    /// What of a session request the agent needs again when the session is attached anew.
    static func setup(_ params: JSON) -> JSON {
        var o: JSONObject = ["mcpServers": params["mcpServers"] ?? .array([])]
        if let dirs = params["additionalDirectories"] { o["additionalDirectories"] = dirs }
        return .object(o)
    }

    /// `session/list`: the ACP sessions of the active root, oldest first, `cwd` filtered; a page
    /// is one page of 1,000 sessions of the store (it may hold fewer: follow `nextCursor`).
    func listSessions(_ id: RequestID, _ params: JSON) {
        let cwd = params["cwd"]
        if let cwd, !cwd.isNull, cwd.stringValue == nil { return failEditor(id, ACPErrors.invalidParams("cwd", "a string")) }
        let cursor = params["cursor"]?.stringValue
        do throws(SessionError) {
            let page = try store.list(order: .created, limit: 1000, cursor: cursor)
            var listed: [JSON] = []
            // The filter is compared inside the root (a path outside it matches nothing).
            let wanted = cwd?.stringValue.map { inside.relative($0) }
            for s in page.sessions {
                guard let info = ACPSessionInfo(s), wanted.map({ $0 == info.cwd }) ?? true else { continue }
                listed.append(ACPSessionInfo.listed(s, info, inside))
            }
            var result: JSONObject = ["sessions": .array(listed)]
            if let next = page.nextCursor { result["nextCursor"] = .string(next) }
            answerEditor(id, .object(result))
        } catch {
            failEditor(id, error.kind == .invalidArgument ? ACPErrors.invalidParams("cursor", "a nextCursor from session/list") : ACPErrors.store(error))
        }
    }
}
