#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CWorkspaceShims
import Workspace

/// This device's id: the `machine-id` file in the configuration folder, created once with
/// `O_EXCL` (and flushed) so concurrent first users agree on one id. Session leases name their
/// owner with it (a restarted server still owns what it held before a crash), and synced
/// settings name this device's file with it.
public enum DeviceIdentity {
    public static func id(configDirectory: String) -> String {
        let path = configDirectory + "/machine-id"
        if let id = read(path) { return id }
        let id = "device-" + String(UInt64.random(in: .min ... .max), radix: 16)
        var prefix = ""
        for part in configDirectory.split(separator: "/") {
            prefix += "/" + part
            mkdir(prefix, 0o700)
        }
        let w = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if w >= 0 {
            _ = id.withCString { write(w, $0, strlen($0)) }
            _ = wb_full_fsync(w)
            close(w)
            return id
        }
        for _ in 0..<200 {  // another process is writing it: wait briefly for its content
            if let other = read(path) { return other }
            usleep(5_000)
        }
        return id
    }

    /// The name of a device's file: the id with anything but `A-Z a-z 0-9 . _ -` replaced by `_`.
    public static func fileName(_ device: String) -> String {
        let safe = device.unicodeScalars.map { c -> String in
            c.isASCII && (c.properties.isAlphabetic || ("0"..."9").contains(c) || c == "." || c == "_" || c == "-")
                ? String(c) : "_"
        }.joined()
        return (safe.isEmpty || safe.hasPrefix(".") ? "d" + safe : safe) + ".json"
    }

    private static func read(_ path: String) -> String? {
        var buf = [UInt8](repeating: 0, count: 64)
        let fd = Sys.openRegularHost(path, flags: O_RDONLY)
        guard fd >= 0 else { return nil }
        let n = Glibc_read(fd, &buf)
        close(fd)
        guard n > 0 else { return nil }
        let id = String(decoding: buf[0..<n], as: UTF8.self).filter { !$0.isWhitespace }
        return id.isEmpty ? nil : id
    }
}

private func Glibc_read(_ fd: Int32, _ buf: inout [UInt8]) -> Int { read(fd, &buf, buf.count) }
