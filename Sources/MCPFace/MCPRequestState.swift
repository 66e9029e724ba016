import AgentSessions
import BridgeServer
import JSON
import JSONRPC
import SystemSupport

/// HMAC-SHA256 (RFC 2104) over the system's SHA-256 (SystemSupport's `SHA256`).
enum HMACSHA256 {
    private static let block = 64

    /// The 32-byte tag of `message` under `key`; nil when no SHA-256 implementation can be loaded.
    static func tag(key: [UInt8], message: [UInt8]) -> [UInt8]? {
        var k = key
        if k.count > block {
            guard let digest = SHA256.digest([k]) else { return nil }
            k = digest
        }
        k += [UInt8](repeating: 0, count: block - k.count)
        guard let inner = SHA256.digest([k.map { $0 ^ 0x36 }, message]) else { return nil }
        return SHA256.digest([k.map { $0 ^ 0x5c }, inner])
    }

    /// Compares two tags in time independent of where they differ.
    static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var diff: UInt8 = 0
        for i in a.indices { diff |= a[i] ^ b[i] }
        return diff == 0
    }
}

/// The `requestState` of an MCP `input_required` result asking for a tool call's approval: what
/// the server needs back on the client's retry, integrity-protected, since the client (or anyone
/// writing to its stdin) controls what it echoes.
///
/// Guarantees: a state verifies only in the process that issued it (HMAC-SHA256 under a random
/// key made at start), before its expiry, and only for the same method, tool, arguments (a digest
/// of their canonical form: object keys sorted), session and approval (or, for a device
/// confirmation, the deferral's reason and tool call id). Anything else is refused
/// with a reason that names what did not match.
struct MCPRequestState: Equatable {
    var method: String
    var tool: String
    var argumentsDigest: String
    var session: String
    var approvalId: String
    /// Milliseconds since the epoch after which the state is refused.
    var expiresAtMs: Int64
    /// For a device confirmation (`MCPDevice`): the deferral's reason (`lowBattery`, `thermal`, …)
    /// and tool call id; nil for an approval (whose `approvalId` is then the one asked about).
    var reason: String? = nil
    var toolCallId: String? = nil

    /// Why a state was refused: the `got` of the `-32602` answer.
    struct Refusal: Error { var reason: String }

    /// `base64(payload) "." base64(tag)`, the payload the canonical JSON of the fields.
    func encoded(key: [UInt8]) throws -> String {
        let payload = JSONCodec.encode(ArgumentsDigest.canonical(json))
        guard let tag = HMACSHA256.tag(key: key, message: payload) else {
            throw RPCError.internalError("SHA-256 is unavailable: \(SHA256.unavailableReason)")
        }
        return Base64.encode(payload) + "." + Base64.encode(tag)
    }

    /// The state `text` carries, verified against `key` and `nowMs`; `Refusal` otherwise. The
    /// caller compares the bound fields with the request it came back on.
    static func decode(_ text: String, key: [UInt8], nowMs: Int64) throws(Refusal) -> MCPRequestState {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let payload = Base64.decode(String(parts[0])), let tag = Base64.decode(String(parts[1])) else {
            throw Refusal(reason: "a requestState this server did not issue (malformed)")
        }
        guard let expected = HMACSHA256.tag(key: key, message: payload), HMACSHA256.equal(expected, tag) else {
            throw Refusal(reason: "a requestState whose signature does not match (altered, or issued by another server process)")
        }
        guard let j = try? JSONCodec.decode(payload), let method = j["m"]?.stringValue, let tool = j["t"]?.stringValue,
              let digest = j["d"]?.stringValue, let session = j["s"]?.stringValue, let aid = j["a"]?.stringValue,
              let expires = j["e"]?.intValue
        else { throw Refusal(reason: "a requestState this server did not issue (fields missing)") }
        guard nowMs <= expires else { throw Refusal(reason: "an expired requestState (the input request timed out; call the tool again)") }
        return MCPRequestState(method: method, tool: tool, argumentsDigest: digest, session: session, approvalId: aid, expiresAtMs: expires,
                               reason: j["r"]?.stringValue, toolCallId: j["c"]?.stringValue)
    }

    private var json: JSON {
        var o: JSONObject = ["m": .string(method), "t": .string(tool), "d": .string(argumentsDigest), "s": .string(session),
                             "a": .string(approvalId), "e": .int(expiresAtMs)]
        if let reason { o["r"] = .string(reason) }
        if let toolCallId { o["c"] = .string(toolCallId) }
        return .object(o)
    }

    /// A digest of a tool call's arguments (`ArgumentsDigest`: the one approvals are bound to).
    static func digest(_ arguments: JSON) throws -> String { try ArgumentsDigest.of(arguments) }
}
