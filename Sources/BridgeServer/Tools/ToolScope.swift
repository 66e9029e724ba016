import JSONRPC
import Workspace

/// What narrows the part of the workspace a tool call may reach, for a face whose client
/// declared a smaller scope than the workspace (MCP's roots). `check` throws a typed error
/// (mapped like any other) for a call whose paths (decoded once, `ToolInvocation`) reach outside
/// it; the tool does not run.
package protocol ToolScope: Sendable {
    func check(paths: [WorkspacePath]) throws
}
