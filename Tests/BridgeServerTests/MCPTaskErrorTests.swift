#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
@testable import BridgeServer
import JSON
@testable import JSONRPC
import Logging
@testable import MCPFace
import Testing
import Workspace

/// A tool call that became an MCP task and failed keeps the error the one mapping made
/// (`Services.mapError`), typed `data.code` and all, in `tasks/get` and in the inline wait alike.
@Suite("MCP task errors")
struct MCPTaskErrorTests {
    private func context() throws -> (RequestContext, Int32, Int32) {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        let server = BridgeServer(configuration: ServerConfiguration(), logger: Logger(label: "test"))
        let connection = Connection(input: fds[0], output: fds[1], options: TransportOptions().connectionOptions(onIdle: {}),
                                    router: server, logger: Logger(label: "test"))
        let ctx = RequestContext(id: .int(1), method: "tools/call", params: ["name": "copy_file"], decoded: nil,
                                 logger: Logger(label: "test"), progress: nil, connection: connection)
        return (ctx, fds[0], fds[1])
    }

    private let mapError: @Sendable (any Error) -> RPCError = { ErrorMapping.rpcError(for: $0) }
    private let failing: @Sendable (RequestContext) throws -> JSON = { _ in
        throw WorkspaceError(.notFound, "'a.txt' does not exist", path: "a.txt")
    }

    @Test("tasks/get answers the mapped domain error, not InternalError")
    func detailKeepsTheMappedError() throws {
        let (ctx, a, b) = try context()
        defer { close(a); close(b) }
        let store = MCPTaskStore()
        let id = try #require(store.start(ctx, statusMessage: "copying", mapError: mapError, run: failing))
        var detail: JSON?
        for _ in 0..<500 {
            detail = store.detail(id, resultType: "complete")
            if detail?["status"]?.stringValue != "working" { break }
            usleep(2000)
        }
        #expect(detail?["status"]?.stringValue == "failed")
        #expect(detail?["error"]?["data"]?["code"]?.stringValue == "NotFound")
        #expect(detail?["error"]?["code"]?.intValue == Int64(ErrorMapping.rpcError(for: WorkspaceError(.notFound, "x")).code))
        #expect(detail?["result"] == nil)
    }

    @Test("the inline wait throws the same mapped error")
    func inlineWaitThrowsTheMappedError() throws {
        let (ctx, a, b) = try context()
        defer { close(a); close(b) }
        let store = MCPTaskStore()
        let id = try #require(store.start(ctx, statusMessage: "copying", mapError: mapError, run: failing))
        do {
            _ = try store.awaitQuickly(id, within: 2_000_000_000)
            Issue.record("a failed task answered a result")
        } catch let e as RPCError {
            #expect(e.dataCode == "NotFound")
        }
    }
}
