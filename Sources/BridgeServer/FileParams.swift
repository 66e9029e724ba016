import JSON
import JSONRPC
import Workspace

/// Decoding of the file API's params: paths, payloads and their encodings.
extension ParamReader {
    package func path(_ key: String, default fallback: String? = nil) throws -> WorkspacePath {
        if isDescribing {
            _ = fallback == nil ? try requiredString(key) : try string(key)
            return .root
        }
        guard let raw = try string(key) ?? fallback else {
            throw RPCError.invalidParams(field: field(key), expected: "a workspace-relative path (string)", got: "nothing")
        }
        return try WorkspacePath(raw)
    }

    enum Encoding: String, CaseIterable { case utf8, base64 }

    func encoding() throws(RPCError) -> Encoding {
        try choice("encoding", as: Encoding.self) ?? .utf8
    }

    /// The `data` param as bytes, decoded per `encoding`.
    func payload(key: String = "data") throws(RPCError) -> [UInt8] {
        let text = try requiredString(key)
        return try bytes(text, key: key)
    }

    /// An optional payload (nil when absent).
    func optionalPayload(key: String) throws(RPCError) -> [UInt8]? {
        // `encoding` is read only with a payload; a description lists it all the same.
        if isDescribing { _ = try encoding() }
        guard let text = try string(key) else { return nil }
        return try bytes(text, key: key)
    }

    private func bytes(_ text: String, key: String) throws(RPCError) -> [UInt8] {
        switch try encoding() {
        case .utf8: return Array(text.utf8)
        case .base64:
            guard let bytes = Base64.decode(text) else {
                throw .invalidParams(field: field(key), expected: "standard base64 (RFC 4648, padded)", got: "invalid base64")
            }
            return bytes
        }
    }

    func nonNegative(_ key: String) throws(RPCError) -> Int64? {
        try int(key, in: 0...Int64.max)
    }

    /// `loadFile`'s line window: `startLine` (1-based) and/or `maxLines`, or `tailLines`; nil
    /// when none is given (a byte range). A byte `offset` may start a `maxLines` window (a
    /// previous window's `nextOffset`); `length` never goes with lines.
    func lineWindow(offset: Int64?, length: Int64?) throws(RPCError) -> Workspace.LineWindow? {
        let start = try int("startLine", in: 1...Int64(Int.max))
        let count = try nonNegative("maxLines").map { Int(clamping: $0) }
        let tail = try nonNegative("tailLines").map { Int(clamping: $0) }
        if start == nil, count == nil, tail == nil { return nil }
        if length != nil {
            throw .invalidParams(field: field("length"), expected: "no length with startLine, maxLines or tailLines (lines or bytes, not both)",
                                 got: "length")
        }
        if let tail {
            guard start == nil, count == nil, offset == nil else {
                throw .invalidParams(field: field("tailLines"), expected: "tailLines alone (not with startLine, maxLines or offset)",
                                     got: "tailLines with another window")
            }
            return .last(tail)
        }
        if let offset {
            guard start == nil else {
                throw .invalidParams(field: field("startLine"), expected: "startLine or a byte offset, not both", got: "both")
            }
            return .linesAt(offset: offset, count: count)
        }
        return .lines(from: Int(start ?? 1), count: count)
    }

    /// An optional glob pattern.
    func glob(_ key: String = "glob") throws -> Glob? {
        try string(key).map { g throws(WorkspaceError) in try Glob(g) }
    }
}

extension Claim {
    static func read(_ path: WorkspacePath) -> Claim { .read("file", path.string) }
    static func write(_ path: WorkspacePath) -> Claim { .write("file", path.string) }

    /// The workspace path a file claim names (its components were a `WorkspacePath`'s).
    var workspacePath: WorkspacePath { components.reduce(WorkspacePath.root) { $0.appending(String($1)) } }
}
