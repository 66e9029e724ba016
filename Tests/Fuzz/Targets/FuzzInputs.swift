#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Finds and reads stored fuzz inputs: the seed corpus and the regression inputs.
public enum FuzzInputs {
    /// `Tests/Fuzz`, found from this source file's location.
    public static let fuzzFolder: String = {
        var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(2)  // Targets/FuzzInputs.swift
        return parts.joined(separator: "/")
    }()

    public static func defaultFolders(for target: any FuzzTarget.Type) -> [String] {
        ["corpus", "regressions"].map { "\(fuzzFolder)/\($0)/\(target.name)" }
    }

    /// The file at `path`, or every regular file directly inside the folder at `path` (sorted
    /// by name); nothing when there is nothing there.
    public static func files(at path: String) -> [(path: String, bytes: [UInt8])] {
        var st = stat()
        guard stat(path, &st) == 0 else { return [] }
        if (st.st_mode & S_IFMT) != S_IFDIR { return load(path).map { [(path, $0)] } ?? [] }
        guard let dir = opendir(path) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if !name.hasPrefix(".") { names.append(name) }
        }
        return names.sorted().compactMap { name in load("\(path)/\(name)").map { ("\(path)/\(name)", $0) } }
    }

    static func load(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return nil }
        var out: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = buf.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            out.append(contentsOf: buf[0..<n])
        }
        return out
    }
}
