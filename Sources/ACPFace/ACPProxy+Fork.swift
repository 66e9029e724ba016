import AgentSessions
import JSON
import JSONRPC

extension ACPProxy {
    /// `session/fork` (ACP v1 unstable), served by our store's fork: a new session holding the
    /// whole history of `sessionId`, with the parent in its lineage. The agent gets it on the
    /// fork's first request as a fresh `session/new` whose first prompt carries the history
    /// (`ACPRecords.handover`), never the parent's agent session: parent and fork go on apart.
    /// The fork keeps the parent's `cwd` (a different `cwd` is refused: InvalidParams).
    func forkSession(_ id: RequestID, _ params: JSON) {
        guard let sid = params["sessionId"]?.stringValue else { return failEditor(id, ACPErrors.invalidParams("sessionId", "a string")) }
        let fork: Session
        do throws(SessionError) {
            guard let info = ACPSessionInfo(try store.get(id: sid)) else {
                return failEditor(id, ACPErrors.invalidParams("sessionId", "a session started through the ACP face (it has no cwd)"))
            }
            if let cwd = params["cwd"]?.stringValue, inside.relative(cwd) != info.cwd {
                return failEditor(id, ACPErrors.invalidParams("cwd", "the forked session's cwd, \(inside.absolute(info.cwd))"))
            }
            fork = try store.fork(id: sid)
        } catch {
            return failEditor(id, ACPErrors.store(error))
        }
        sessionSetup[fork.id] = Self.setup(params)
        answerEditor(id, ["sessionId": .string(fork.id)])
    }
}
