import JSONRPC

/// Everything the server is started with; passed in, never read from globals.
public struct ServerConfiguration: Sendable {
    public var localRoot: String?
    public var cloudRoot: String?
    public var maxMessageBytes: Int
    /// Adds the `debug/*` methods used by tests and benchmarks.
    public var enableDebugMethods: Bool
    /// How often the `initialize` `processId` is checked, in milliseconds.
    public var parentPollMilliseconds: Int
    /// The process environment (for the default data folder), passed in rather than read globally.
    public var environment: [String: String]

    public init(localRoot: String? = nil, cloudRoot: String? = nil, maxMessageBytes: Int = 64 << 20,
                enableDebugMethods: Bool = false, parentPollMilliseconds: Int = 250, environment: [String: String] = [:]) {
        self.environment = environment
        self.localRoot = localRoot
        self.cloudRoot = cloudRoot
        self.maxMessageBytes = maxMessageBytes
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
    func defaultLocalRoot() throws -> String {
        #if os(macOS)
        if let home = environment["HOME"], !home.isEmpty { return home + "/Library/Application Support/workspace-bridge/default" }
        #else
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") { return xdg + "/workspace-bridge/default" }
        if let home = environment["HOME"], !home.isEmpty { return home + "/.local/share/workspace-bridge/default" }
        #endif
        throw NoHome()
    }
}
