#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import JSON
import JSONRPC

/// The agent's world is the workspace: a session's `cwd` and `additionalDirectories` must be
/// existing folders inside the active root (the root itself included).
///
/// Guarantees: paths are compared after `realpath` on both sides, so neither `..` nor a symbolic
/// link inside the root can name a folder outside it; a path that does not exist is refused.
struct InsideRoot: Sendable {
    let root: String

    init(_ root: String) { self.root = Self.resolved(root) ?? root }

    /// Nil when every path of `params` (`cwd`, `additionalDirectories`) is inside; else the error.
    func refusal(_ params: JSON) -> RPCError? {
        var paths: [(String, JSON?)] = [("cwd", params["cwd"])]
        for (i, d) in (params["additionalDirectories"]?.arrayValue ?? []).enumerated() { paths.append(("additionalDirectories.\(i)", d)) }
        for (field, value) in paths {
            guard let path = value?.stringValue, path.hasPrefix("/") else {
                if field == "cwd" || value != nil { return ACPErrors.invalidParams(field, "an absolute path") }
                continue
            }
            guard relative(path) != nil else {
                return RPCError(code: -32803, message: "\(field) \(path) is not a folder inside the workspace (\(root))",
                                dataCode: "OutsideWorkspace", data: ["field": .string(field), "path": .string(path)])
            }
        }
        return nil
    }

    /// The path relative to the root ("" for the root itself); nil when it is not inside.
    func relative(_ path: String) -> String? {
        guard let real = Self.resolved(path) else { return nil }
        if real == root { return "" }
        let prefix = root == "/" ? "/" : root + "/"
        return real.hasPrefix(prefix) ? String(real.dropFirst(prefix.count)) : nil
    }

    /// A file's path relative to the root (the file need not exist): the absolute `path` as
    /// written when it starts with the root, else with its folder resolved; nil when neither is
    /// inside. Not a sandbox by itself: the workspace refuses `..`, links and special files.
    func fileRelative(_ path: String) -> String? {
        guard path.hasPrefix("/") else { return nil }
        let prefix = root == "/" ? "/" : root + "/"
        if path.hasPrefix(prefix) { return String(path.dropFirst(prefix.count)) }
        guard let slash = path.lastIndex(of: "/"), let folder = relative(slash == path.startIndex ? "/" : String(path[..<slash])) else { return nil }
        let name = String(path[path.index(after: slash)...])
        return folder.isEmpty ? name : folder + "/" + name
    }

    /// The absolute path of a path relative to the root.
    func absolute(_ relative: String) -> String {
        relative.isEmpty ? root : (root == "/" ? "/" : root + "/") + relative
    }

    private static func resolved(_ path: String) -> String? {
        var buf = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard realpath(path, &buf) != nil else { return nil }
        return String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
