import SystemSupport

/// A validated workspace-relative path: `/`-separated components, none of them empty, `.`
/// or `..`, none holding NUL, a percent-encoded separator or dot segment, or a backslash other
/// than in the one escaped form of a name's bytes (`EscapedName`: `caf\xe9.txt`).
///
/// Components are names' texts; system calls take their bytes (`onDisk`).
///
/// Validation is lexical and only the first line of defence: containment itself is enforced
/// by the kernel when the path is resolved (see `SandboxedRoot`).
public struct WorkspacePath: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let components: [String]

    public static let root = WorkspacePath(components: [])
    public static let maxBytes = 4096
    public static let maxComponentBytes = 255

    init(components: [String]) { self.components = components }

    public init(_ raw: String) throws(WorkspaceError) {
        var bytes = raw
        switch bytes.withUTF8(Self.parse) {
        case .success(let parts): components = parts
        case .failure(let refusal): throw WorkspaceError(refusal.code, "invalid path '\(raw.prefix(200))': \(refusal.why)", path: raw)
        }
    }

    private struct Refusal: Error {
        let code: WorkspaceError.Code
        let why: String
        init(_ code: WorkspaceError.Code, _ why: String) {
            self.code = code
            self.why = why
        }
    }

    /// The components of a raw path, checked byte by byte: separators are `/` bytes wherever
    /// they fall (never hidden inside a character by a combining mark), and `.`/`..` are those
    /// exact bytes.
    private static func parse(_ u: UnsafeBufferPointer<UInt8>) -> Result<[String], Refusal> {
        let slash = UInt8(ascii: "/"), dot = UInt8(ascii: "."), percent = UInt8(ascii: "%")
        if u.contains(0) { return .failure(Refusal(.invalidPath, "it contains a NUL byte")) }
        // An escaped byte (`\xe9`) takes four bytes of text: the limit is on the bytes on disk.
        if u.count > maxBytes * 4 { return .failure(Refusal(.invalidPath, "it is longer than \(maxBytes) bytes")) }
        if u.first == slash {
            return .failure(Refusal(.outsideWorkspace, "absolute paths are refused; paths are relative to the workspace root"))
        }
        if u.first == UInt8(ascii: "~") { return .failure(Refusal(.outsideWorkspace, "'~' (a home folder) is outside the workspace")) }
        if u.count >= 2, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(u[0] | 0x20), u[1] == UInt8(ascii: ":"),
            u.count == 2 || u[2] == slash
        {
            return .failure(Refusal(.outsideWorkspace, "drive-letter paths are absolute"))
        }
        var parts: [String] = []
        var total = 0
        var start = 0
        while start <= u.count {
            var end = start
            while end < u.count && u[end] != slash { end += 1 }
            defer { start = end + 1 }
            let part = UnsafeBufferPointer(rebasing: u[start..<end])
            if part.isEmpty || (part.count == 1 && part[0] == dot) { continue }
            if part.count == 2 && part[0] == dot && part[1] == dot {
                return .failure(Refusal(.outsideWorkspace, "'..' segments are refused"))
            }
            let name = String(decoding: part, as: UTF8.self)
            var diskBytes = part.count
            if part.contains(UInt8(ascii: "\\")) {
                guard EscapedName.isCanonical(name) else {
                    return .failure(Refusal(.invalidPath, "backslashes are not path separators here; use '/' (a name's "
                        + "bytes that are not UTF-8, and a backslash itself, are written \\x and two lowercase hex digits: "
                        + "'caf\\xe9.txt', 'a\\x5cb')"))
                }
                diskBytes = EscapedName.bytes(name).count
            }
            if diskBytes > maxComponentBytes {
                return .failure(Refusal(.invalidPath, "a name is longer than \(maxComponentBytes) bytes"))
            }
            total += diskBytes + 1
            if part.contains(percent), EscapedName.spellsPathSyntaxWhenDecoded(name) {
                return .failure(Refusal(.invalidPath, "a percent-encoded separator, dot segment or NUL is refused (a name "
                    + "on disk spelled so is written with '\\x25' for each '%': 'a\\x252Fb' for 'a%2Fb')"))
            }
            parts.append(name)
        }
        if total > maxBytes + 1 { return .failure(Refusal(.invalidPath, "it is longer than \(maxBytes) bytes")) }
        return .success(parts)
    }

    public var isRoot: Bool { components.isEmpty }
    public var name: String { components.last ?? "" }
    public var parent: WorkspacePath { WorkspacePath(components: Array(components.dropLast())) }
    public var string: String { components.joined(separator: "/") }
    public var description: String { string }

    public func appending(_ name: String) -> WorkspacePath { WorkspacePath(components: components + [name]) }

    /// A sibling named `stem (label).ext` (the label numbered from the second try on: `label 2`,
    /// `label 3`, …) for which `isFree` says yes: how keep-both copies are named.
    public func labelledSibling(_ label: String, isFree: (WorkspacePath) -> Bool) -> WorkspacePath {
        let dot = name.lastIndex(of: ".").flatMap { $0 == name.startIndex ? nil : $0 }
        let stem = dot.map { String(name[..<$0]) } ?? name
        let ext = dot.map { String(name[$0...]) } ?? ""
        var n = 1
        while true {
            let candidate = parent.appending("\(stem) (\(label)\(n == 1 ? "" : " \(n)"))\(ext)")
            if isFree(candidate) { return candidate }
            n += 1
        }
    }

    /// Whether `self` is `other` or inside it.
    public func isWithin(_ other: WorkspacePath) -> Bool {
        components.count >= other.components.count && Array(components.prefix(other.components.count)) == other.components
    }

    /// Depth-first listing order: component by component, names compared as bytes.
    public static func < (a: WorkspacePath, b: WorkspacePath) -> Bool {
        for (x, y) in zip(a.components, b.components) where x != y {
            return x.utf8.lexicographicallyPrecedes(y.utf8)
        }
        return a.components.count < b.components.count
    }
}
