import JSON

/// The identity of a tool call's arguments: SHA-256 (hex) of their canonical JSON (every object's
/// keys sorted), so equal arguments written in any key order have the same digest. An approval is
/// bound to its tool and this digest, on every face.
public enum ArgumentsDigest {
    public static func of(_ arguments: JSON) throws(SessionError) -> String {
        try Digest.sha256(JSONCodec.encode(canonical(arguments)))
    }

    /// `value` with every object's keys sorted, so equal values encode to equal bytes.
    public static func canonical(_ value: JSON) -> JSON {
        switch value {
        case .object(let o):
            return .object(JSONObject(o.members.sorted { $0.key < $1.key }.map { ($0.key, canonical($0.value)) }))
        case .array(let a):
            return .array(a.map(canonical))
        default:
            return value
        }
    }
}
