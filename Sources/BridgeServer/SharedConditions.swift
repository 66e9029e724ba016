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
/// Guarantees: the file (`<config>/device-conditions.json`, `{conditions, pid, start, at}`) is
/// replaced atomically (a reader sees the old or the new conditions, never a mix), under an
/// exclusive `flock` on the config folder; it holds what the host said last, through whichever
/// server process. Conditions are trusted only while fresh: the process that wrote them still
/// runs (its pid *and* its start time, `ProcessIdentity`, so a reused pid never vouches for
/// them) and `at` is at most the reader's `maxAge` old (`--conditions-max-age`, 5 minutes by
/// default) and not ahead of the clock by more than `skew`. The writer rewrites them every fifth
/// of its `maxAge` while it lives and is still the last to have written (`AgentService`). A file over `FileCap.deviceConditions`, damaged, or not a regular file is ignored
/// with a warning (assumed conditions), never read beyond its cap. Device conditions are of this
/// device, so they live in the config folder, never in the synced workspace.
enum SharedConditions {
    /// How far ahead of this clock `at` may be (a clock stepped back between two processes).
    static let skew: Int64 = 60_000

    static func path(configDirectory: String) -> String { configDirectory + "/device-conditions.json" }

    /// Writes `conditions` for the other processes (no fsync: after a restart they are stale anyway).
    /// With `onlyIfOurs` (the periodic refresh), writes only when this process wrote them last,
    /// so a refresh never puts back what another host has since replaced; returns whether it wrote.
    @discardableResult
    static func write(_ conditions: DeviceConditions, configDirectory: String, onlyIfOurs: Bool = false) throws(SharedConditionsError) -> Bool {
        let file = path(configDirectory: configDirectory)
        if mkdir(configDirectory, 0o700) != 0 && errno != EEXIST {
            throw SharedConditionsError(reason: "cannot create \(configDirectory): errno \(errno)")
        }
        let me = ProcessIdentity.current
        let dir = open(configDirectory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard dir >= 0 else { throw SharedConditionsError(reason: "cannot open \(configDirectory): errno \(errno)") }
        defer { close(dir) }
        while flock(dir, LOCK_EX) != 0 && errno == EINTR {}
        if onlyIfOurs {
            guard case .bytes(let bytes) = BoundedFile.read(file, .deviceConditions), let json = try? JSONCodec.decode(bytes),
                  writer(json) == me
            else { return false }
        }
        var o: JSONObject = ["conditions": conditions.json, "pid": .int(Int64(getpid())), "at": .int(WallClock.nanos() / 1_000_000)]
        if let me { o["start"] = .string(me.start) }
        let tmp = file + ".tmp-\(getpid())"
        let fd = Sys.openRegularHost(tmp, flags: O_WRONLY | O_CREAT | O_TRUNC, mode: 0o600)
        guard fd >= 0 else { throw SharedConditionsError(reason: "cannot write \(tmp): errno \(errno)") }
        let ok = FileIO.writeAll(fd, JSONCodec.encode(.object(o)))
        close(fd)
        guard ok, rename(tmp, file) == 0 else {
            let e = errno
            unlink(tmp)
            throw SharedConditionsError(reason: "cannot write \(file): errno \(e)")
        }
        return true
    }

    /// What reading the shared file gave.
    struct Read {
        /// The conditions to trust; nil when there are none (no file, stale, damaged, too large).
        var conditions: DeviceConditions?
        /// Why a file that is there was not used, when that is worth a warning (damaged, too
        /// large, not a regular file). Stale conditions are not: a host that ended leaves them.
        var warning: String?
    }

    /// The conditions another process's host reported, if they are fresh (see the type's guarantees).
    /// `maxAge` and `now` in milliseconds (`now` since the epoch).
    static func read(configDirectory: String, maxAge: Int64, now: Int64 = WallClock.nanos() / 1_000_000) -> Read {
        let file = path(configDirectory: configDirectory)
        let bytes: [UInt8]
        switch BoundedFile.read(file, .deviceConditions) {
        case .absent: return Read()
        case .bytes(let b): bytes = b
        case .ignored(let why): return Read(warning: why)
        case .failed(let e): return Read(warning: "the device conditions \(file) cannot be read: \(describeErrno(e)); ignored")
        }
        guard let json = try? JSONCodec.decode(bytes), let body = json["conditions"],
              let conditions = try? SetConditions.Params(ParamReader(body)).conditions, let at = json["at"]?.intValue
        else { return Read(warning: "the device conditions \(file) are damaged (not the JSON a server writes); ignored") }
        guard let writer = writer(json), writer.isRunning, at >= now - maxAge, at <= now + skew else { return Read() }
        return Read(conditions: conditions)
    }

    /// The process a file's `pid` and `start` name (nil when either is missing or out of range).
    private static func writer(_ json: JSON) -> ProcessIdentity? {
        guard let pid = json["pid"]?.intValue, pid > 0, pid <= Int64(Int32.max), let start = json["start"]?.stringValue
        else { return nil }
        return ProcessIdentity(pid: Int32(pid), start: start)
    }
}

/// Why the shared conditions could not be written (logged; the process's own conditions still apply).
struct SharedConditionsError: Error { var reason: String }
