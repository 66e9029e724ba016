/// A validated workspace-relative path: `/`-separated components, none of them empty, `.`
/// or `..`, none holding NUL, a backslash, or a percent-encoded separator or dot segment.
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
        func refuse(_ code: WorkspaceError.Code, _ why: String) -> WorkspaceError {
            WorkspaceError(code, "invalid path '\(raw.prefix(200))': \(why)", path: raw)
        }
        if raw.utf8.contains(0) { throw refuse(.invalidPath, "it contains a NUL byte") }
        if raw.utf8.count > Self.maxBytes { throw refuse(.invalidPath, "it is longer than \(Self.maxBytes) bytes") }
        if raw.hasPrefix("/") { throw refuse(.outsideWorkspace, "absolute paths are refused; paths are relative to the workspace root") }
        if raw.hasPrefix("~") { throw refuse(.outsideWorkspace, "'~' (a home folder) is outside the workspace") }
        if raw.contains("\\") { throw refuse(.invalidPath, "backslashes are not path separators here; use '/'") }
        let chars = Array(raw.prefix(3))
        if chars.count >= 2, chars[0].isASCII, chars[0].isLetter, chars[1] == ":", chars.count == 2 || chars[2] == "/" {
            throw refuse(.outsideWorkspace, "drive-letter paths are absolute")
        }
        var parts: [String] = []
        for part in raw.split(separator: "/", omittingEmptySubsequences: true) {
            if part == "." { continue }
            if part == ".." { throw refuse(.outsideWorkspace, "'..' segments are refused") }
            if part.utf8.count > Self.maxComponentBytes {
                throw refuse(.invalidPath, "a name is longer than \(Self.maxComponentBytes) bytes")
            }
            if part.contains("%") {
                let decoded = Self.percentDecodedRepeatedly(String(part))
                if decoded != String(part),
                    decoded == ".." || decoded == "." || decoded.contains("/") || decoded.contains("\\")
                        || decoded.utf8.contains(0) || decoded.hasPrefix("~")
                {
                    throw refuse(.invalidPath, "a percent-encoded separator, dot segment or NUL is refused")
                }
            }
            parts.append(String(part))
        }
        components = parts
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

    private static func percentDecodedRepeatedly(_ s: String) -> String {
        var current = s
        for _ in 0..<3 {
            let next = percentDecoded(current)
            if next == current { break }
            current = next
        }
        return current
    }

    private static func percentDecoded(_ s: String) -> String {
        var out: [UInt8] = []
        let bytes = Array(s.utf8)
        var i = 0
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: "%"), i + 2 < bytes.count, let h = hex(bytes[i + 1]), let l = hex(bytes[i + 2]) {
                out.append(h << 4 | l)
                i += 3
            } else {
                out.append(bytes[i])
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func hex(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
