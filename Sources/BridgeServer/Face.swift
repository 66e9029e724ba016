import JSON
import JSONRPC

/// The name of a face, as the connection's lifecycle records which one it speaks.
package struct FaceID: Hashable, Sendable, CustomStringConvertible {
    package let name: String
    package init(_ name: String) { self.name = name }
    /// The LSP-style face: the core's own methods (`MethodTables`), served when no other face
    /// claims the connection.
    package static let lsp = FaceID("lsp")
    package var description: String { name }
}

/// A protocol the server speaks on a connection besides the LSP-style core (MCP, ACP...): its
/// method table, its per-connection state and its conventions (`Connection.Conventions`), over
/// the face-neutral `Services` it shares with every face.
///
/// Guarantees a face gives the router (`BridgeServer`): it is built once per connection
/// (`init(services:)`) and keeps its state in itself, never in `Services`; it claims an
/// `initialize` only by that request's params (or the server's configuration), before any
/// other decoding; once the connection speaks it (`Lifecycle.chosenFace`), every message
/// after the handshake is routed by it alone. Errors its handlers throw are mapped by
/// `Services.mapError`, like every other path's.
package protocol Face: Sendable {
    static var id: FaceID { get }
    init(services: Services)
    /// What follows the active root in the face's state (told before the core's, see `WorkspaceMoves`).
    var followers: [any FollowsWorkspace] { get }
    /// Whether an `initialize` with these params is this face's (on the reading thread).
    func claimsInitialize(_ params: JSON?) -> Bool
    /// The conventions the connection follows from the admission of a claimed `initialize` on.
    var conventions: Connection.Conventions { get }
    /// Answers the `initialize` it claimed (a barrier, on the pool).
    func initialize(_ params: JSON?, _ call: Call) throws -> JSON
    /// Undoes what a failed `initialize` it claimed left on the connection.
    func initializeFailed(_ connection: Connection)
    /// Routes a message while the connection speaks this face, after the handshake.
    func route(method: String, isRequest: Bool) -> Routing
    /// Routes a message the face serves whatever the handshake (MCP's modern era, which has
    /// none); nil leaves it to the lifecycle rules. `coreMethod`: the LSP-style face has a
    /// request of this name.
    func routeWithoutHandshake(method: String, isRequest: Bool, phase: Lifecycle.Phase, coreMethod: Bool) -> Routing?
    /// The connection has ended with `exitCode` (`Connection.run()`).
    func connectionEnded(exitCode: Int32)
}

extension Face {
    package var followers: [any FollowsWorkspace] { [] }
    package func initializeFailed(_ connection: Connection) {}
    package func routeWithoutHandshake(method: String, isRequest: Bool, phase: Lifecycle.Phase, coreMethod: Bool) -> Routing? { nil }
    package func connectionEnded(exitCode: Int32) {}
}

extension Call {
    /// The state of the face whose table serves this call (`Face`), as that face's type.
    package func faceState<State: Sendable>(_: State.Type) throws(RPCError) -> State {
        guard let s = face as? State else { throw .internalError("\(request?.method ?? "this call") is not served by the face of \(State.self)") }
        return s
    }
}
