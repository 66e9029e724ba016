import JSON
import JSONRPC
import Workspace

/// Decoding of the file API's params: paths, payloads and their encodings.
extension Params {
    func path(_ key: String, default fallback: String? = nil) throws -> WorkspacePath {
        guard let raw = try string(key) ?? fallback else {
            throw RPCError.invalidParams(field: field(key), expected: "a workspace-relative path (string)", got: "nothing")
        }
        return try WorkspacePath(raw)
    }

    enum Encoding: String { case utf8, base64 }

    func encoding() throws(RPCError) -> Encoding {
        Encoding(rawValue: try choice("encoding", ["utf8", "base64"]) ?? "utf8")!
    }

    /// The `data` param as bytes, decoded per `encoding`.
    func payload(key: String = "data") throws(RPCError) -> [UInt8] {
        let text = try requiredString(key)
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
}

extension FileStatus {
    /// `{path, size, etag, modified}`: what every write answers.
    var writeResult: JSON {
        ["path": .string(path.string), "size": .int(size), "etag": .string(etag), "modified": .string(modified)]
    }

    /// A listing entry.
    var entry: JSON {
        ["path": .string(path.string), "name": .string(path.name), "type": .string(type.rawValue), "size": .int(size),
         "modified": .string(modified), "etag": .string(etag), "state": .string(state)]
    }
}
