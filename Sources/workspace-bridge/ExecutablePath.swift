#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The absolute path of the running executable (what another process must run to get this
/// same binary), or nil when the system will not say.
enum ExecutablePath {
    static func current() -> String? {
        #if canImport(Darwin)
        var size: UInt32 = 0
        _ = _NSGetExecutablePath(nil, &size)
        var buffer = [CChar](repeating: 0, count: Int(size) + 1)
        guard _NSGetExecutablePath(&buffer, &size) == 0, let resolved = realpath(buffer, nil) else { return nil }
        #else
        guard let resolved = realpath("/proc/self/exe", nil) else { return nil }
        #endif
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
