import BridgeServer
import JSON
import JSONRPC

/// The MCP versions this binary serves, both eras (docs/mcp-2026.md §1).
enum MCPVersions {
    /// Versions served statelessly, from each request's `_meta` (no handshake).
    static let modern = ["2026-07-28"]
    /// Versions reached through the 2025 `initialize` handshake.
    static var handshake: [String] { MCPMethods.supportedVersions }
    /// Every version, newest first: what `server/discover` and `UnsupportedProtocolVersion` name.
    static var all: [String] { modern + handshake.reversed() }
}

/// The error codes the 2026-07-28 revision defines (its reserved band, −32020…−32099).
enum MCPErrorCode {
    static let missingRequiredClientCapability = -32021
    static let unsupportedProtocolVersion = -32022
}

/// The per-request envelope of MCP's 2026-07-28 era: what one request says about itself in
/// `params._meta` (protocol version, client capabilities and identity, log level; the trace context
/// is read apart, for every request's logger: `MCPTraceContext`).
///
/// Guarantees: a value exists only for a request whose version this binary serves in the modern
/// era and whose required fields are well-formed; anything else is the revision's error
/// (`-32022` for a version, `-32602` for a missing or malformed field). A request whose `_meta`
/// carries none of the era's keys is not a modern request (`parse` returns nil): it belongs to
/// the 2025 handshake era.
struct MCPEnvelope: Sendable {
    static let versionKey = "io.modelcontextprotocol/protocolVersion"
    static let capabilitiesKey = "io.modelcontextprotocol/clientCapabilities"
    static let clientInfoKey = "io.modelcontextprotocol/clientInfo"
    static let logLevelKey = "io.modelcontextprotocol/logLevel"
    static let serverInfoKey = "io.modelcontextprotocol/serverInfo"
    static let logLevels = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]

    let version: String
    let capabilities: JSONObject
    let clientName: String?
    let logLevel: String?

    /// Whether the client declared an extension (e.g. `io.modelcontextprotocol/tasks`) on this request.
    func declares(extension id: String) -> Bool {
        capabilities["extensions"]?.objectValue?[id]?.objectValue != nil
    }

    /// The envelope of `params`, nil when the request carries none of the modern era's keys.
    /// A `_meta` that is there and not an object (nor null) is `-32602` naming `_meta`, in both eras.
    static func parse(_ params: JSON?) throws(RPCError) -> MCPEnvelope? {
        if let raw = params?["_meta"], !raw.isNull, raw.objectValue == nil {
            throw RPCError.invalidParams(field: "_meta", expected: "an object (the request's metadata)", got: raw.typeName)
        }
        guard let meta = params?["_meta"]?.objectValue,
              meta[versionKey] != nil || meta[capabilitiesKey] != nil || meta[clientInfoKey] != nil
        else { return nil }
        guard let version = meta[versionKey]?.stringValue else {
            throw RPCError.invalidParams(field: "_meta.\(versionKey)", expected: "the protocol version, a string such as \"\(modernLatest)\"",
                                         got: meta[versionKey]?.typeName ?? "nothing")
        }
        guard MCPVersions.modern.contains(version) else { throw RPCError.unsupportedProtocolVersion(requested: version) }
        guard let capabilities = meta[capabilitiesKey]?.objectValue else {
            throw RPCError.invalidParams(field: "_meta.\(capabilitiesKey)", expected: "the client's capabilities (an object)",
                                         got: meta[capabilitiesKey]?.typeName ?? "nothing")
        }
        var logLevel: String?
        if let raw = meta[logLevelKey] {
            guard let level = raw.stringValue, logLevels.contains(level) else {
                throw RPCError.invalidParams(field: "_meta.\(logLevelKey)", expected: "an MCP log level (\(logLevels.joined(separator: ", ")))",
                                             got: raw.stringValue.map { "\"\($0)\"" } ?? raw.typeName)
            }
            logLevel = level
        }
        return MCPEnvelope(version: version, capabilities: capabilities,
                           clientName: meta[clientInfoKey]?.objectValue?["name"]?.stringValue,
                           logLevel: logLevel)
    }

    private static var modernLatest: String { MCPVersions.modern.last ?? "" }
}

extension RPCError {
    /// MCP's `UnsupportedProtocolVersion` (`-32022`): `data.supported` names every version this
    /// binary serves, both eras, and `data.requested` the one asked for.
    static func unsupportedProtocolVersion(requested: String) -> RPCError {
        RPCError(code: MCPErrorCode.unsupportedProtocolVersion, message: "Unsupported protocol version: \(requested.isEmpty ? "(empty)" : requested)",
                 dataCode: "UnsupportedProtocolVersion",
                 data: ["supported": .array(MCPVersions.all.map(JSON.string)), "requested": .string(requested)])
    }
}
