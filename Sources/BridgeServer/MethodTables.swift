import JSONRPC

/// Every method the server declares, by table. A method is added by declaring it in the file of
/// its area and listing it in that area's `all`; a name declared twice stops the server at
/// startup (`MethodIndex`).
enum MethodTables {
    /// The LSP-style face's requests (debug methods only with `--enable-debug-methods`).
    static func requests(_ configuration: ServerConfiguration) -> [any MethodDeclaration.Type] {
        LifecycleMethods.requests + commandDeclarations + lspWorkspace + (configuration.enableDebugMethods ? DebugMethods.all : [])
    }

    /// The custom requests, also reachable as `workspace/executeCommand` commands (`ExecuteCommand`).
    static let commandDeclarations: [any MethodDeclaration.Type] =
        FileMethods.all + StorageMethods.all + SessionMethods.all + HostMethods.all + SettingsMethods.all

    /// LSP's own workspace requests: `wsb:` documents and commands.
    static let lspWorkspace: [any MethodDeclaration.Type] = [TextDocumentContent.self, ExecuteCommand.self]

    /// The LSP-style face's notifications from the client.
    static let notifications = LifecycleMethods.notifications

    /// Notifications the server sends.
    static let serverNotifications = ["$/progress", "$/logTrace", "window/logMessage", "workspace/didChangeFiles",
                                      "session/didChangeState", "session/deferredReady", "queue/ready", "settings/didChange"]

    /// Request methods offered, sorted (what `initialize` reports in `capabilities.methods`).
    static func requestNames(_ configuration: ServerConfiguration) -> [String] { requests(configuration).map { $0.method }.sorted() }
    /// Notifications accepted from the client, sorted.
    static let notificationNames = notifications.map { $0.method }.sorted()

    /// The connection's methods for `declarations`, indexed by name (a duplicate traps).
    static func index(_ declarations: [any MethodDeclaration.Type], services: Services, table: String) -> [String: Method] {
        MethodIndex.byName(declarations.map { $0.method(services) }, table: table)
    }
}
