@testable import BridgeServer
@testable import MCPFace
import JSON
import Logging
import Testing

@Suite("MCP trace context in log metadata")
struct MCPTraceContextTests {
    private func metadata(_ meta: JSON) -> Logger.Metadata { MCPTraceContext.logMetadata(["_meta": meta]) }

    @Test("a well-formed traceparent and tracestate become log metadata")
    func wellFormed() {
        let m = metadata(["traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "tracestate": "a=1,b=2"])
        #expect(m["traceparent"] == .string("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"))
        #expect(m["tracestate"] == .string("a=1,b=2"))
        // a later version may append fields
        #expect(metadata(["traceparent": "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra"])["traceparent"] != nil)
    }

    @Test("malformed values, line breaks and a tracestate without a traceparent are left out")
    func malformed() {
        for bad in ["", "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",
                    "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01\nx",
                    "00_4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"] {
            #expect(metadata(["traceparent": .string(bad)]).isEmpty, "\(bad)")
        }
        #expect(metadata(["traceparent": 7]).isEmpty)
        #expect(metadata(["tracestate": "a=1"]).isEmpty)
        let withBadState = metadata(["traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "tracestate": "a=1\nb"])
        #expect(withBadState["traceparent"] != nil && withBadState["tracestate"] == nil)
        #expect(MCPTraceContext.logMetadata(nil).isEmpty)
    }
}
