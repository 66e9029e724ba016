/// The server's name and versions, as `initialize` and `--version` report them.
public enum ServerInfo {
    public static let name = "workspace-bridge"
    /// The release of this binary.
    public static let version = "0.1.0"
    /// The version of the wire protocol (methods, params, results, errors) in `schema/openrpc.json`.
    public static let protocolVersion = "0.1.0"
}
