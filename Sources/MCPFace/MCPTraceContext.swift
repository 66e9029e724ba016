import BridgeServer
import JSON
import Logging

/// The W3C trace context an MCP request carries in `params._meta` (`traceparent`, `tracestate`;
/// both eras), as log metadata: the request's logger carries it for the whole request (see
/// `Plan.logMetadata`), so every line logged while serving it (tool code, storage, sessions, the
/// detached work of a task) can be joined to the client's trace.
///
/// Guarantees: only well-formed values are taken (`traceparent` is `version-traceid-parentid-flags`
/// in lowercase hex, `tracestate` at most 512 printable ASCII characters); anything else is
/// left out, so a client cannot write line breaks or arbitrary text into the server's log.
enum MCPTraceContext {
    static func logMetadata(_ params: JSON?) -> Logger.Metadata {
        guard let meta = params?["_meta"]?.objectValue else { return [:] }
        var out: Logger.Metadata = [:]
        if let traceparent = meta["traceparent"]?.stringValue, isTraceparent(traceparent) {
            out["traceparent"] = .string(traceparent)
            if let tracestate = meta["tracestate"]?.stringValue, isTracestate(tracestate) { out["tracestate"] = .string(tracestate) }
        }
        return out
    }

    /// `00-<32 hex>-<16 hex>-<2 hex>` (a later version may append `-…` fields; version `ff` is invalid).
    static func isTraceparent(_ s: String) -> Bool {
        let u = Array(s.utf8)
        guard u.count == 55 || (u.count > 55 && u.count <= 256 && u[55] == UInt8(ascii: "-")) else { return false }
        for (i, c) in u.prefix(55).enumerated() {
            if i == 2 || i == 35 || i == 52 {
                guard c == UInt8(ascii: "-") else { return false }
            } else if !isLowerHex(c) {
                return false
            }
        }
        return !(u[0] == UInt8(ascii: "f") && u[1] == UInt8(ascii: "f"))
            && u[55...].allSatisfy { $0 >= 0x21 && $0 <= 0x7E }
    }

    static func isTracestate(_ s: String) -> Bool {
        let u = s.utf8
        return !u.isEmpty && u.count <= 512 && u.allSatisfy { $0 >= 0x20 && $0 <= 0x7E }
    }

    private static func isLowerHex(_ c: UInt8) -> Bool {
        (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")) || (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "f"))
    }
}
