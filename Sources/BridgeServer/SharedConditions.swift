#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import AgentSessions
import JSON
import SystemSupport
import Workspace

/// The device conditions a host reported (`host/setConditions`), shared with the other server
/// processes of the same config folder: an MCP process (`workspace-bridge mcp`, started by an
/// agent, not by the host) has no `host/setConditions`, yet runs on the same device and must
/// decide as the JSON-RPC face does.
///
/// Guarantees: the file (`<config>/device-conditions.json`, `{conditions, pid, at}`) is replaced
/// atomically (a reader sees the old or the new conditions, never a mix); it holds what the host
/// said last, through whichever server process; a reader ignores it once the process that wrote
/// it has ended (conditions nobody keeps up to date are not trusted: a host that restarts its
/// server reports them again), and ignores a damaged or unreadable file (assumed conditions).
/// Device conditions are of this device, so they live in the config folder, never in the synced
/// workspace.
enum SharedConditions {
    static func path(configDirectory: String) -> String { configDirectory + "/device-conditions.json" }

    /// Writes `conditions` for the other processes (no fsync: after a restart they are stale anyway).
    static func write(_ conditions: DeviceConditions, configDirectory: String) throws(SharedConditionsError) {
        let file = path(configDirectory: configDirectory)
        if mkdir(configDirectory, 0o700) != 0 && errno != EEXIST {
            throw SharedConditionsError(reason: "cannot create \(configDirectory): errno \(errno)")
        }
        let json: JSON = ["conditions": conditions.json, "pid": .int(Int64(getpid())), "at": .int(WallClock.nanos() / 1_000_000)]
        let tmp = file + ".tmp-\(getpid())"
        let fd = Sys.openRegularHost(tmp, flags: O_WRONLY | O_CREAT | O_TRUNC, mode: 0o600)
        guard fd >= 0 else { throw SharedConditionsError(reason: "cannot write \(tmp): errno \(errno)") }
        let ok = FileIO.writeAll(fd, JSONCodec.encode(json))
        close(fd)
        guard ok, rename(tmp, file) == 0 else {
            let e = errno
            unlink(tmp)
            throw SharedConditionsError(reason: "cannot write \(file): errno \(e)")
        }
    }

    /// The conditions another (still running) process's host reported; nil when there are none
    /// to trust (no file, damaged, or its writer has ended).
    static func read(configDirectory: String) -> DeviceConditions? {
        let fd = Sys.openRegularHost(path(configDirectory: configDirectory), flags: O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        guard let bytes = FileIO.readToEnd(fd), let json = try? JSONCodec.decode(bytes),
              let pid = json["pid"]?.intValue, let body = json["conditions"],
              let conditions = try? DeviceConditions(json: body)
        else { return nil }
        guard pid > 0, pid <= Int64(Int32.max), kill(pid_t(pid), 0) == 0 || errno == EPERM else { return nil }
        return conditions
    }
}

/// Why the shared conditions could not be written (logged; the process's own conditions still apply).
struct SharedConditionsError: Error { var reason: String }
