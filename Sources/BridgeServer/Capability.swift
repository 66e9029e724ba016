import JSON
import JSONRPC

/// What a method can reach beyond the connection itself. Every declaration states its set
/// (`MethodDeclaration.reaches`, required), a server process is granted a set
/// (`ServerConfiguration.grant`, `serve --deny`), and the planner refuses a call whose method,
/// or the method it forwards to, needs one not granted (`Grant.admit`). So a gate is written
/// in what methods reach, never in their names: an alias, a wrapper or a batch item reaches
/// no more than its method may.
public enum Capability: String, CaseIterable, Sendable, Comparable {
    /// The workspace inside the active root: files, sessions, the offline queue, conflicts,
    /// watches (every path checked to stay inside the root).
    case workspace
    /// Which configured root is active, and moving the workspace between the roots.
    case storage
    /// The machine's settings (the config folder's settings file).
    case settings
    /// The device facts the host reports (battery, network, thermal state, background).
    case device
    /// Paths of the host outside the workspace: importing from and exporting to them, a file's
    /// host `file://` URI.
    case hostPaths = "host-paths"
    /// The `debug/*` methods (tests, benchmarks).
    case debugging
    /// Ending the server on request (`shutdown`, `exit`); a server granted none ends at end of
    /// input or on a signal.
    case lifecycle

    public static func < (a: Capability, b: Capability) -> Bool {
        allCases.firstIndex(of: a) ?? 0 < allCases.firstIndex(of: b) ?? 0
    }

    /// The names, as the command line and `error.data.capabilities` spell them.
    public static var names: [String] { allCases.map(\.rawValue) }
}

/// The capabilities a server process is granted, and the one check every call passes.
package struct Grant: Sendable {
    package let capabilities: Set<Capability>

    package init(_ capabilities: Set<Capability>) { self.capabilities = capabilities }

    /// Admits a call of `method` that needs `needs`, or refuses it: `CapabilityDenied`
    /// (-32803), `data.method` the method and `data.capabilities` the ones not granted.
    /// `through` names the method that forwarded it (`workspace/executeCommand`, a tool call).
    package func admit(_ needs: Set<Capability>, method: String, through: String? = nil) throws(RPCError) {
        let missing = needs.subtracting(capabilities).sorted()
        guard !missing.isEmpty else { return }
        let names = missing.map(\.rawValue)
        var data = JSONObject()
        data["method"] = .string(method)
        data["capabilities"] = .array(names.map { .string($0) })
        if let through { data["through"] = .string(through) }
        let via = through.map { " (through \($0))" } ?? ""
        throw RPCError(code: ErrorCode.requestFailed,
                       message: "\(method)\(via) needs \(names.joined(separator: ", ")), which this server does not grant",
                       dataCode: "CapabilityDenied", data: data)
    }
}

/// What a call forwards to besides its own method (`MethodDeclaration.forwarded`): the method
/// (or tool) it runs and what that one reaches.
package struct Forward: Sendable {
    package let method: String
    package let reaches: Set<Capability>

    package init(method: String, reaches: Set<Capability>) {
        self.method = method
        self.reaches = reaches
    }
}
