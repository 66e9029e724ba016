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

    public init(localRoot: String? = nil, cloudRoot: String? = nil, maxMessageBytes: Int = 64 << 20,
                enableDebugMethods: Bool = false, parentPollMilliseconds: Int = 250) {
        self.localRoot = localRoot
        self.cloudRoot = cloudRoot
        self.maxMessageBytes = maxMessageBytes
        self.enableDebugMethods = enableDebugMethods
        self.parentPollMilliseconds = parentPollMilliseconds
    }
}
