@testable import BridgeServer
@testable import MCPFace
import JSON
import Testing

/// HMAC-SHA256 against RFC 4231's vectors, and `requestState` sealing: only this key, before
/// expiry, unaltered.
@Suite("MCP requestState")
struct MCPRequestStateTests {
    private func hex(_ b: [UInt8]?) -> String { (b ?? []).map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined() }

    @Test("RFC 4231 test cases 1, 2 and 6 (a key longer than the block)")
    func rfc4231() {
        #expect(hex(HMACSHA256.tag(key: [UInt8](repeating: 0x0b, count: 20), message: Array("Hi There".utf8)))
                == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        #expect(hex(HMACSHA256.tag(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8)))
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        #expect(hex(HMACSHA256.tag(key: [UInt8](repeating: 0xaa, count: 131),
                                   message: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8)))
                == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }

    @Test("a state verifies under its key before expiry only, and any altered byte is refused")
    func sealing() throws {
        let key = [UInt8](repeating: 7, count: 32)
        let state = MCPRequestState(method: "tools/call", tool: "write_file", argumentsDigest: try MCPRequestState.digest(["b": 1, "a": 2]),
                                    session: "sess_1", approvalId: "apr_1", expiresAtMs: 1_000)
        let text = try state.encoded(key: key)
        #expect(try MCPRequestState.decode(text, key: key, nowMs: 999) == state)
        #expect(throws: MCPRequestState.Refusal.self) { try MCPRequestState.decode(text, key: key, nowMs: 1_001) }
        #expect(throws: MCPRequestState.Refusal.self) { try MCPRequestState.decode(text, key: [UInt8](repeating: 8, count: 32), nowMs: 0) }
        var bytes = Array(text.utf8)
        bytes[3] = bytes[3] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        #expect(throws: MCPRequestState.Refusal.self) { try MCPRequestState.decode(String(decoding: bytes, as: UTF8.self), key: key, nowMs: 0) }
        #expect(throws: MCPRequestState.Refusal.self) { try MCPRequestState.decode("", key: key, nowMs: 0) }
    }

    @Test("the arguments digest ignores key order and sees every value")
    func digest() throws {
        #expect(try MCPRequestState.digest(["a": 1, "b": ["x": 1, "y": 2]]) == MCPRequestState.digest(["b": ["y": 2, "x": 1], "a": 1]))
        #expect(try MCPRequestState.digest(["a": 1]) != MCPRequestState.digest(["a": 2]))
    }
}
