import JSON

/// Typed reading of named params, with `-32602` errors that name the field and what was
/// expected ("'processId' must be an integer or null, got string").
///
/// A reader can also *describe* instead of decode (`Params(describing:)`): every accessor then
/// records the field it was asked for (name, JSON type, required, allowed values) and answers a
/// placeholder, so running a method's params decoder on it lists exactly the fields that decoder
/// reads. That list is what the schema agreement check compares; it cannot drift from decoding
/// because it is produced by the decoding code itself.
public struct Params: Sendable {
    public let object: JSONObject
    /// Dotted path of this object inside the params ("" at the top).
    public let path: String
    /// Names shown in errors instead of the decoder's own (an agent tool's renamed arguments).
    public let aliases: [String: String]
    /// The params as sent (nil when absent), for a decoder that hands them whole to a parser.
    public let source: JSON?
    let recorder: FieldRecorder?

    public init(_ params: JSON?, path: String = "", aliases: [String: String] = [:]) throws(RPCError) {
        source = params
        switch params {
        case nil, .null?: object = JSONObject()
        case .object(let o)?: object = o
        case let other?: throw RPCError.invalidParams(field: path, expected: "an object", got: other.typeName)
        }
        self.path = path
        self.aliases = aliases
        self.recorder = nil
    }

    /// A reader that records the fields asked for (see the type's comment).
    public init(describing recorder: FieldRecorder, path: String = "") {
        object = JSONObject()
        self.path = path
        aliases = [:]
        source = nil
        self.recorder = recorder
    }

    /// Whether this reader describes rather than decodes.
    public var isDescribing: Bool { recorder != nil }

    public func field(_ key: String) -> String {
        let shown = aliases[key] ?? key
        return path.isEmpty ? shown : "\(path).\(shown)"
    }

    private func record(_ key: String, _ type: String?, required: Bool, allowed: [String]? = nil) {
        recorder?.record(ParamField(name: field(key), type: type, required: required, allowed: allowed))
    }

    public subscript(key: String) -> JSON? {
        if let v = object[key], !v.isNull { return v }
        return nil
    }

    /// Any JSON value (null reads as absent).
    public func value(_ key: String) -> JSON? {
        if recorder != nil { record(key, nil, required: false); return nil }
        return self[key]
    }

    public func string(_ key: String) throws(RPCError) -> String? {
        if recorder != nil { record(key, "string", required: false); return nil }
        guard let v = self[key] else { return nil }
        guard case .string(let s) = v else { throw .invalidParams(field: field(key), expected: "a string", got: v.typeName) }
        return s
    }

    public func requiredString(_ key: String) throws(RPCError) -> String {
        if recorder != nil { record(key, "string", required: true); return "" }
        guard let s = try string(key) else { throw .invalidParams(field: field(key), expected: "a string", got: "nothing") }
        return s
    }

    public func bool(_ key: String) throws(RPCError) -> Bool? {
        if recorder != nil { record(key, "boolean", required: false); return nil }
        guard let v = self[key] else { return nil }
        guard case .bool(let b) = v else { throw .invalidParams(field: field(key), expected: "a boolean", got: v.typeName) }
        return b
    }

    public func int(_ key: String, in range: ClosedRange<Int64> = Int64.min...Int64.max) throws(RPCError) -> Int64? {
        if recorder != nil { record(key, "integer", required: false); return nil }
        guard let v = self[key] else { return nil }
        guard let i = v.intValue else { throw .invalidParams(field: field(key), expected: "an integer", got: v.typeName) }
        guard range.contains(i) else {
            throw .invalidParams(field: field(key), expected: "an integer in \(range.lowerBound)...\(range.upperBound)",
                                 got: String(i))
        }
        return i
    }

    public func requiredInt(_ key: String, in range: ClosedRange<Int64> = Int64.min...Int64.max) throws(RPCError) -> Int64 {
        if recorder != nil { record(key, "integer", required: true); return range.lowerBound }
        guard let i = try int(key, in: range) else {
            throw .invalidParams(field: field(key), expected: "an integer", got: "nothing")
        }
        return i
    }

    /// One of a fixed set of strings.
    public func choice(_ key: String, _ allowed: [String]) throws(RPCError) -> String? {
        if recorder != nil { record(key, "string", required: false, allowed: allowed); return nil }
        guard let s = try string(key) else { return nil }
        guard allowed.contains(s) else {
            throw .invalidParams(field: field(key), expected: "one of " + allowed.map { "\"\($0)\"" }.joined(separator: ", "),
                                 got: "\"\(s)\"")
        }
        return s
    }

    /// One of a fixed set of strings, required; `expected` is what the error says when it is absent.
    public func requiredChoice(_ key: String, _ allowed: [String], expected: String) throws(RPCError) -> String {
        if recorder != nil { record(key, "string", required: true, allowed: allowed); return allowed[0] }
        guard let s = try choice(key, allowed) else { throw .invalidParams(field: field(key), expected: expected, got: "nothing") }
        return s
    }

    /// A nested object (its fields are not described: the schema's own `$ref` says them).
    public func object(_ key: String) throws(RPCError) -> Params? {
        if let recorder {
            record(key, "object", required: false)
            return Params(describing: FieldRecorder(discarding: recorder), path: field(key))
        }
        guard let v = self[key] else { return nil }
        return try Params(v, path: field(key))
    }

    /// A required nested object.
    public func requiredObject(_ key: String) throws(RPCError) -> Params {
        if let recorder {
            record(key, "object", required: true)
            return Params(describing: FieldRecorder(discarding: recorder), path: field(key))
        }
        guard let o = try object(key) else {
            throw .invalidParams(field: field(key), expected: "an object", got: object[key]?.typeName ?? "nothing")
        }
        return o
    }

    /// An array, as its items (null reads as absent).
    public func array(_ key: String, expected: String = "an array") throws(RPCError) -> [JSON]? {
        if recorder != nil { record(key, "array", required: false); return nil }
        guard let v = self[key] else { return nil }
        guard case .array(let items) = v else { throw .invalidParams(field: field(key), expected: expected, got: v.typeName) }
        return items
    }

    /// A required array; `expected` names what its items are ("an array of messages").
    public func requiredArray(_ key: String, expected: String) throws(RPCError) -> [JSON] {
        if recorder != nil { record(key, "array", required: true); return [] }
        guard let v = self[key], case .array(let items) = v else {
            throw .invalidParams(field: field(key), expected: expected, got: self[key]?.typeName ?? "nothing")
        }
        return items
    }

    /// Any value, present (null counts as present here: `debug/echo` echoes it).
    public func required(_ key: String) throws(RPCError) -> JSON {
        if recorder != nil { record(key, nil, required: true); return .null }
        guard let v = object[key] else { throw .invalidParams(field: field(key), expected: "a value", got: "nothing") }
        return v
    }
}
