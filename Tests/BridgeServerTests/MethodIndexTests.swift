@testable import BridgeServer
import JSON
import JSONRPC
import Logging
import Testing

@Suite("Method tables")
struct MethodIndexTests {
    @Test("every method name of the real tables is declared once (the server starts, debug methods included)")
    func realTablesAreUnique() {
        let s = BridgeServer(configuration: ServerConfiguration(enableDebugMethods: true), logger: Logger(label: "test"))
        #expect(Set(s.methodNames).count == s.methodNames.count)
        #expect(s.methodNames.contains("saveFile") && s.methodNames.contains("debug/sleep"))
    }

    @Test("a name declared twice stops the process, naming the method")
    func duplicateTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let a = Method("twice") { _ in .null }
            let b = Method("twice") { _ in .bool(true) }
            _ = MethodIndex.byName([Method("once") { _ in .null }, a, b], table: "request")
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(stderr.contains("the request method 'twice' is declared twice"))
    }

    @Test("distinct names are all kept")
    func distinctNames() {
        let t = MethodIndex.byName([Method("a") { _ in .null }, Method("b") { _ in .null }], table: "request")
        #expect(t.keys.sorted() == ["a", "b"])
    }
}
