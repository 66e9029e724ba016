import AgentSessions
import JSON
import JSONRPC

extension ACPProxy {
    /// `session/fork` (ACP v1 unstable), served by our store's fork: a new session holding the
    /// whole history of `sessionId`, with the parent in its lineage. The agent gets it on the
    /// fork's first request as a fresh `session/new` whose first prompt carries the history
    /// (`ACPRecords.handover`), never the parent's agent session: parent and fork go on apart.
    /// The fork keeps the parent's `cwd` (a different `cwd` is refused: InvalidParams).
    /// `_meta.workspaceBridge.atMessageId` cuts the fork after one message: an ACP `messageId`
    /// the session's chunks carried (the cut after its last chunk), or the id of one of the
    /// session's messages as the JSON-RPC face lists them (`session/messages`); another id is
    /// InvalidParams.
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
            var cut: String?
            if let at = params["_meta"]?["workspaceBridge"]?["atMessageId"] {
                guard let wanted = at.stringValue, let found = Self.cut(at: wanted, in: try allMessages(sid)) else {
                    return failEditor(id, ACPErrors.invalidParams("_meta.workspaceBridge.atMessageId",
                                                                  "a messageId of the session's chunks, or a message id of session/messages"))
                }
                cut = found
            }
            fork = try store.fork(id: sid, atMessageId: cut)
        } catch {
            return failEditor(id, ACPErrors.store(error))
        }
        sessionSetup[fork.id] = Self.setup(params)
        answerEditor(id, ["sessionId": .string(fork.id)])
    }

    /// The stored message a fork at `wanted` ends with: the message of that id, else the last
    /// update whose chunk carried that ACP `messageId`.
    static func cut(at wanted: String, in messages: [Message]) -> String? {
        if messages.contains(where: { $0.id == wanted }) { return wanted }
        return messages.last { $0.content["update"]?["messageId"]?.stringValue == wanted }?.id
    }
}
