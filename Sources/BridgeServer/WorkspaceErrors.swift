import JSON
import JSONRPC
import Workspace

/// Workspace failures as the protocol shows them: `-32803` with `data.code`, `data.path` and
/// the error's details (e.g. `currentEtag`); a cancellation check that fired becomes `-32800`.
extension WorkspaceError: DomainError {
    public var dataCode: String { code.rawValue }

    public var data: JSONObject {
        var d = JSONObject()
        if let path { d["path"] = .string(path) }
        for (key, value) in details.sorted(by: { $0.key < $1.key }) {
            switch value {
            case .string(let s): d[key] = .string(s)
            case .int(let i): d[key] = .int(i)
            case .null: d[key] = .null
            }
        }
        return d
    }
}

extension ErrorMapping {
    static func workspace(_ e: WorkspaceError) -> RPCError? {
        e.code == .cancelled ? .cancelled : nil
    }
}
