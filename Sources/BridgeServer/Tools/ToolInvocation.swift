import JSON
import JSONRPC
import Workspace

/// One call of a tool, its arguments decoded once, when the request is planned, by the decoder
/// of the method the tool mirrors (a tool of its own: by its declaration's): the same decoded
/// value gives what the call claims (the method's `schedule`), the paths a face's scope checks,
/// and the run. Arguments that do not decode keep the error, answered as an `isError` result
/// when the call runs; such a call claims nothing in the workspace (it touches nothing there).
package struct ToolInvocation: Sendable {
    package let tool: Tool
    package let arguments: JSON
    let decoded: Result<Decoded, any Error>

    /// A decoded call: its claims and paths, and its run.
    struct Decoded: Sendable {
        var claims: [Claim]
        /// The workspace paths the call names (a face's `ToolScope` checks them).
        var paths: [WorkspacePath]
        var run: @Sendable (Call) throws -> ToolOutput
    }

    init(tool: Tool, arguments: JSON) {
        self.tool = tool
        self.arguments = arguments
        decoded = Result { try tool.decode(arguments) }
    }

    /// What the call claims, in session `session`: the session (written: the call is journaled)
    /// and what the tool's method claims for these arguments.
    package func claims(session: String) -> [Claim] {
        [Claim("session", path: session, access: .write)] + ((try? decoded.get().claims) ?? [])
    }
}

extension Schedule {
    /// The claims of a method a tool mirrors: a barrier holds the whole workspace; work that
    /// touches nothing shared claims nothing.
    var toolClaims: [Claim] {
        switch self {
        case .claims(let c): c
        case .barrier: [.write("file", "")]
        case .free, .unordered: []
        }
    }
}
