@testable import BridgeServer
@testable import MCPFace
import JSON
import JSONRPC
import Logging
import Testing

private func server(debug: Bool = false) -> BridgeServer {
    BridgeServer(configuration: ServerConfiguration(enableDebugMethods: debug), logger: Logger(label: "test"), faces: [MCPFace.self])
}

private func rejection(_ r: Routing) -> RPCError? {
    if case .reject(let e) = r { return e }
    return nil
}

private func handled(_ r: Routing) -> String? {
    if case .handle(let m) = r { return m.name }
    return nil
}

@Suite("Lifecycle routing")
struct RouterTests {
    @Test("before initialize: requests get ServerNotInitialized, notifications are dropped, exit is accepted")
    func beforeInitialize() {
        let s = server()
        // A method no table has: its `_meta` decides. A 2025 request gets ServerNotInitialized, a
        // 2026 one MethodNotFound (the revision forbids -32002; test_mcp_modern_tasks.py, tasks/list).
        #expect(handled(s.route(method: "no/such-method", isRequest: true)) == "no/such-method")
        // MCP method names go to the per-message era dispatcher (MCPModern): it answers a 2025
        // `ping` ServerNotInitialized (test_lifecycle.py), a 2026 one MethodNotFound (test_mcp_modern_raw.py).
        #expect(handled(s.route(method: "ping", isRequest: true)) == "ping")
        #expect(handled(s.route(method: "server/discover", isRequest: true)) == "server/discover")
        #expect(rejection(s.route(method: "shutdown", isRequest: true))?.dataCode == "ServerNotInitialized")
        #expect(rejection(s.route(method: "$/cancelRequest", isRequest: false)) != nil)
        #expect(handled(s.route(method: "exit", isRequest: false)) == "exit")
        #expect(handled(s.route(method: "initialize", isRequest: true)) == "initialize")
    }

    @Test("after initialize: a second initialize is refused; unknown methods get MethodNotFound; unknown $/ notifications are ignored")
    func running() {
        let s = server()
        s.lifecycle.set(.running)
        #expect(rejection(s.route(method: "initialize", isRequest: true))?.dataCode == "AlreadyInitialized")
        #expect(handled(s.route(method: "ping", isRequest: true)) == "ping")
        #expect(rejection(s.route(method: "nope", isRequest: true))?.code == -32601)
        #expect(rejection(s.route(method: "$/nope", isRequest: true))?.code == -32601)
        if case .ignore = s.route(method: "$/nope", isRequest: false) {} else { Issue.record("unknown $/ notification not ignored") }
    }

    @Test("shutdown flips the phase at arrival (its prepare, once admitted), so every later request is refused")
    func shutdown() {
        let s = server()
        s.lifecycle.set(.running)
        guard case .handle(let m) = s.route(method: "shutdown", isRequest: true) else {
            Issue.record("shutdown not routed to its method")
            return
        }
        #expect(m.name == "shutdown")
        // The phase is set on the reading thread before the request is admitted: by `prepare`.
        #expect(m.prepare != nil)
        s.lifecycle.set(.shutDown)
        let e = rejection(s.route(method: "ping", isRequest: true))
        #expect(e?.code == -32600)
        #expect(e?.dataCode == "ShutdownRequested")
        #expect(handled(s.route(method: "exit", isRequest: false)) == "exit")
    }

    @Test("debug methods exist only when enabled")
    func debugMethods() {
        #expect(!server().methodNames.contains { $0.hasPrefix("debug/") })
        #expect(server(debug: true).methodNames.contains("debug/sleep"))
    }

    @Test("domain errors map to -32803 with their data.code; unknown errors to -32603")
    func errorMapping() {
        struct Missing: DomainError {
            var dataCode: String { "NotFound" }
            var message: String { "no such file: a.txt" }
            var data: JSONObject { ["path": "a.txt"] }
        }
        struct Other: Error {}
        let e = ErrorMapping.rpcError(for: Missing())
        #expect(e.code == -32803)
        #expect(e.dataCode == "NotFound")
        #expect(e.data["path"] == "a.txt")
        #expect(ErrorMapping.rpcError(for: Other()).code == -32603)
    }
}
