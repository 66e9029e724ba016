import AgentSessions
import Workspace

/// Everything the server process is started with: the one value the command line's options
/// (`workspace-bridge`'s `ServerOptions`) map into, passed in and never read from globals.
public struct ServerConfiguration: Sendable, Equatable {
    public var localRoot: String?
    public var cloudRoot: String?
    /// Where per-machine settings (the storage choice) live; default under the user's config folder.
    public var configDirectory: String?
    /// The layout of a root used for the first time (`--template`); nil: the client's
    /// `initializationOptions.template`, else the default.
    public var template: WorkspaceTemplate?
    /// Adds the `debug/*` methods used by tests and benchmarks.
    public var enableDebugMethods: Bool
    /// What calls may reach (`Capability`): a call whose method needs one not granted is refused
    /// `CapabilityDenied` (`serve --deny`; the web host grants its page no host paths). Default all.
    public var grant: Set<Capability> = Set(Capability.allCases)
    /// How often the `initialize` `processId` is checked, in milliseconds.
    public var parentPollMilliseconds: Int
    /// Serve MCP whatever the client's `initialize` says (`workspace-bridge mcp`).
    public var forceMCP = false
    /// The session MCP tool calls are journaled into (`--session`); one is created otherwise.
    public var mcpSession: String?
    /// Folders of the workspace MCP tools and resources are narrowed to (`mcp --root`), absolute
    /// or workspace-relative; empty: the whole workspace (or, in the 2025 era, the client's roots).
    public var mcpRoots: [String] = []
    /// The approval policy of the session `mcp` creates (`mcp --approval-policy`); nil: none.
    /// A `--session` keeps its own.
    public var mcpApprovalPolicy: ApprovalPolicy?
    /// How long an MCP client has to answer an approval request (`mcp --approval-timeout`): the
    /// 2025 era's `elicitation/create` wait, the 2026-07-28 era's `requestState` lifetime.
    public var mcpApprovalTimeout: Duration = .seconds(300)
    /// The process environment (for the default data folder), passed in rather than read globally.
    public var environment: [String: String]
    /// How the process talks to its client (framing, limits, timeouts, log).
    public var transport = TransportOptions()
    /// How long shared device conditions stay trusted after they were written
    /// (`--conditions-max-age`); their writer rewrites them every fifth of it (`SharedConditions`).
    public var conditionsMaxAge: Duration = .seconds(300)
    /// The session hub every session record is replicated to (`--hub`); nil: none.
    public var hub: ReplicaRef?

    public init(localRoot: String? = nil, cloudRoot: String? = nil, enableDebugMethods: Bool = false,
                parentPollMilliseconds: Int = 250, environment: [String: String] = [:]) {
        self.environment = environment
        self.localRoot = localRoot
        self.cloudRoot = cloudRoot
        self.enableDebugMethods = enableDebugMethods
        self.parentPollMilliseconds = parentPollMilliseconds
    }
}

extension ServerConfiguration {
    struct NoHome: Error, CustomStringConvertible {
        var description: String { "no --local-root was given and neither XDG_DATA_HOME nor HOME is set" }
    }

    /// `$XDG_DATA_HOME/workspace-bridge/default` (`~/.local/share/…`), or on macOS
    /// `~/Library/Application Support/workspace-bridge/default`.
    public func defaultLocalRoot() throws -> String {
        try userFolder(xdg: "XDG_DATA_HOME", underHome: ".local/share") + "/default"
    }

    /// `--config-dir`, else `$XDG_CONFIG_HOME/workspace-bridge` (`~/.config/…`), or on macOS
    /// `~/Library/Application Support/workspace-bridge` (per machine, never inside a synced root).
    public func resolvedConfigDirectory() throws -> String {
        if let configDirectory { return configDirectory }
        return try userFolder(xdg: "XDG_CONFIG_HOME", underHome: ".config")
    }

    /// The server's folder in the user's XDG base directory `variable` (an absolute path), else
    /// under `~/underHome`; on macOS always in `~/Library/Application Support`.
    private func userFolder(xdg variable: String, underHome: String) throws -> String {
        #if os(macOS)
        if let home = environment["HOME"], !home.isEmpty { return home + "/Library/Application Support/workspace-bridge" }
        #else
        if let xdg = environment[variable], xdg.hasPrefix("/") { return xdg + "/workspace-bridge" }
        if let home = environment["HOME"], !home.isEmpty { return home + "/" + underHome + "/workspace-bridge" }
        #endif
        throw NoHome()
    }
}
