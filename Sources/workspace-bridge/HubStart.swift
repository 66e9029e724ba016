#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import AgentSessions
import BridgeServer
import SessionHub
import Storage
import SystemSupport

/// The session hub a server process replicates to: `--hub`, else `WORKSPACE_BRIDGE_HUB`.
enum HubStart {
    /// The hub's address, checked (a password in it is refused); nil: no hub.
    static func address(option: String?, environment: [String: String]) throws -> HubAddress? {
        guard let text = option ?? environment["WORKSPACE_BRIDGE_HUB"].flatMap({ $0.isEmpty ? nil : $0 }) else { return nil }
        do throws(HubAddress.Refused) { return try HubAddress(text) } catch {
            throw ServerMain.StartupError("\(option != nil ? "--hub" : "WORKSPACE_BRIDGE_HUB"): \(error.description)")
        }
    }

    /// Opens the hub for `configuration` (its outbox in the config folder, one per hub address);
    /// `ServerMain` starts its drainer once signals are blocked. Nothing is sent or awaited
    /// here: a hub that is down is retried.
    static func attach(_ configuration: inout ServerConfiguration, option: String?) throws {
        guard let address = try address(option: option, environment: configuration.environment) else { return }
        let config = try configuration.resolvedConfigDirectory()
        do throws(SessionError) { try makeFolder(config) } catch {
            throw ServerMain.StartupError("cannot create the config folder for the hub's outbox: \(error.message)")
        }
        let name = SHA256.digest([Array(address.conninfo.utf8)]).map { SHA256.hex(Array($0.prefix(8))) } ?? "default"
        do throws(HubError) {
            let hub = try Hub(address: address, outboxPath: config + "/hub-outbox-\(name).jsonl",
                              origin: DeviceIdentity.id(configDirectory: config))
            configuration.hub = ReplicaRef(hub)
        } catch {
            throw ServerMain.StartupError(error.message)
        }
    }

    private static func makeFolder(_ path: String) throws(SessionError) {
        var made = ""
        for part in path.split(separator: "/") {
            made += "/" + part
            if mkdir(made, 0o700) != 0 && errno != EEXIST { throw SessionError(.ioError, "cannot create \(made): \(String(cString: strerror(errno)))") }
        }
    }
}
