import AgentSessions
import JSON
import JSONRPC
import SessionErrorData
import Workspace

/// An error of the workspace or session core that a client should see as a typed failure
/// (`-32803` with `data.code`), not as an internal error.
///
/// Core modules define their own error types; this server maps them here, in one place.
public protocol DomainError: Error {
    /// The name in the schema's `ErrorData.code` enumeration, e.g. `NotFound`.
    var dataCode: String { get }
    var message: String { get }
    /// Extra fields for `error.data`, e.g. `path`.
    var data: JSONObject { get }
}

/// The one place where errors become protocol errors.
package enum ErrorMapping {
    package static func rpcError(for error: any Error) -> RPCError {
        switch error {
        case let e as RPCError: return e
        case let e as WorkspaceError: return workspace(e) ?? .failed(e.dataCode, e.message, data: e.data)
        case let e as any DomainError: return .failed(e.dataCode, e.message, data: e.data)
        default: return .internalError(String(describing: error))
        }
    }
}

/// Session errors are domain failures (`-32803`) with their `data.code`; their `data` is built
/// from the error's typed details by `SessionErrorData` (`from`, `to`, `allowed` for
/// `InvalidTransition`…), the module the ACP face maps them with too, so no face imports another.
extension SessionError: DomainError {
    public var dataCode: String { code }
}
