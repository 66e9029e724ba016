import JSONRPC

/// A choice read as the enumeration it names: the strings allowed are the cases' raw values, so
/// the answer is a case, with no force unwrap at the declaration that reads it.
extension ParamReader {
    /// One of `E`'s cases by its raw value; nil when absent (see `choice(_:_:)`).
    func choice<E: RawRepresentable & CaseIterable>(_ key: String, as _: E.Type) throws(RPCError) -> E?
    where E.RawValue == String {
        guard let raw = try choice(key, E.allCases.map(\.rawValue)) else { return nil }
        return try Self.named(raw, key)
    }

    /// One of `E`'s cases by its raw value, required; `expected` is what the error says when it
    /// is absent (see `requiredChoice(_:_:expected:)`).
    func requiredChoice<E: RawRepresentable & CaseIterable>(_ key: String, as _: E.Type, expected: String) throws(RPCError) -> E
    where E.RawValue == String {
        try Self.named(try requiredChoice(key, E.allCases.map(\.rawValue), expected: expected), key)
    }

    /// The case named `raw`, which the reader has already checked is one of the raw values.
    private static func named<E: RawRepresentable & CaseIterable>(_ raw: String, _ key: String) throws(RPCError) -> E
    where E.RawValue == String {
        for c in E.allCases where c.rawValue == raw { return c }
        throw .invalidParams(field: key, expected: "one of " + E.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", "),
                             got: "\"\(raw)\"")
    }

    /// An array of `E`'s cases by their raw values (`field[i]` in errors); nil when absent.
    func choices<E: RawRepresentable & CaseIterable & Hashable>(_ key: String, as _: E.Type) throws(RPCError) -> Set<E>?
    where E.RawValue == String {
        guard let items = try strings(key) else { return nil }
        var out = Set<E>()
        for (i, raw) in items.enumerated() {
            guard let c = E.allCases.first(where: { $0.rawValue == raw }) else {
                throw .invalidParams(field: "\(field(key))[\(i)]",
                                     expected: "one of " + E.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", "), got: "\"\(raw)\"")
            }
            out.insert(c)
        }
        return out
    }

    /// An array of strings (`field[i]` in errors); nil when absent.
    func strings(_ key: String) throws(RPCError) -> [String]? {
        guard let items = try array(key, expected: "an array of strings") else { return nil }
        var out: [String] = []
        for (i, v) in items.enumerated() {
            guard let s = v.stringValue else { throw .invalidParams(field: "\(field(key))[\(i)]", expected: "a string", got: v.typeName) }
            out.append(s)
        }
        return out
    }
}

