import JSON

/// Typed reading of named params, with `-32602` errors that name the field and what was
/// expected ("'processId' must be an integer or null, got string").
public struct Params: Sendable {
    public let object: JSONObject
    /// Dotted path of this object inside the params ("" at the top).
    public let path: String

    public init(_ params: JSON?, path: String = "") throws(RPCError) {
        switch params {
        case nil, .null?: object = JSONObject()
        case .object(let o)?: object = o
        case let other?: throw RPCError.invalidParams(field: path, expected: "an object", got: other.typeName)
        }
        self.path = path
    }

    public func field(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    public subscript(key: String) -> JSON? {
        if let v = object[key], !v.isNull { return v }
        return nil
    }

    public func string(_ key: String) throws(RPCError) -> String? {
        guard let v = self[key] else { return nil }
        guard case .string(let s) = v else { throw .invalidParams(field: field(key), expected: "a string", got: v.typeName) }
        return s
    }

    public func requiredString(_ key: String) throws(RPCError) -> String {
        guard let s = try string(key) else { throw .invalidParams(field: field(key), expected: "a string", got: "nothing") }
        return s
    }

    public func bool(_ key: String) throws(RPCError) -> Bool? {
        guard let v = self[key] else { return nil }
        guard case .bool(let b) = v else { throw .invalidParams(field: field(key), expected: "a boolean", got: v.typeName) }
        return b
    }

    public func int(_ key: String, in range: ClosedRange<Int64> = Int64.min...Int64.max) throws(RPCError) -> Int64? {
        guard let v = self[key] else { return nil }
        guard let i = v.intValue else { throw .invalidParams(field: field(key), expected: "an integer", got: v.typeName) }
        guard range.contains(i) else {
            throw .invalidParams(field: field(key), expected: "an integer in \(range.lowerBound)...\(range.upperBound)",
                                 got: String(i))
        }
        return i
    }

    public func requiredInt(_ key: String, in range: ClosedRange<Int64> = Int64.min...Int64.max) throws(RPCError) -> Int64 {
        guard let i = try int(key, in: range) else {
            throw .invalidParams(field: field(key), expected: "an integer", got: "nothing")
        }
        return i
    }

    /// One of a fixed set of strings.
    public func choice(_ key: String, _ allowed: [String]) throws(RPCError) -> String? {
        guard let s = try string(key) else { return nil }
        guard allowed.contains(s) else {
            throw .invalidParams(field: field(key), expected: "one of " + allowed.map { "\"\($0)\"" }.joined(separator: ", "),
                                 got: "\"\(s)\"")
        }
        return s
    }

    public func object(_ key: String) throws(RPCError) -> Params? {
        guard let v = self[key] else { return nil }
        return try Params(v, path: field(key))
    }

    public func required(_ key: String) throws(RPCError) -> JSON {
        guard let v = object[key] else { throw .invalidParams(field: field(key), expected: "a value", got: "nothing") }
        return v
    }
}
