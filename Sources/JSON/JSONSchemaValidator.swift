/// Validates values against the subset of JSON Schema the tool table uses: `type` (one or a
/// list), `properties`, `required`, `additionalProperties: false`, `enum`, `const`, `minimum`,
/// `maximum`, `minLength`, `maxLength` (in Unicode code points, as JSON Schema counts),
/// `pattern` (searched, not anchored, as JSON Schema says; the tool schemas' patterns use the
/// syntax ECMA-262 and Swift's `Regex` share), `items`, `minItems`, `maxItems`, `oneOf` and
/// `anyOf`. Reports the first problem with the dotted path of the offending field and what was
/// expected, so a model can correct its call.
public enum JSONSchemaValidator {
    public struct Problem: Error, Sendable, Equatable, CustomStringConvertible {
        public var field: String
        public var expected: String
        public var description: String { field.isEmpty ? "arguments must be \(expected)" : "'\(field)' must be \(expected)" }
    }

    public static func validate(_ value: JSON, against schema: JSON, at path: String = "") -> Problem? {
        if let types = schema["type"] {
            let allowed = types.arrayValue?.compactMap(\.stringValue) ?? [types.stringValue ?? ""]
            if !allowed.contains(where: { matches(value, type: $0) }) {
                return Problem(field: path, expected: article(allowed.joined(separator: " or ")))
            }
        }
        if let options = schema["enum"]?.arrayValue, !options.contains(value) {
            return Problem(field: path, expected: "one of " + options.map(JSONCodec.encodeString).joined(separator: ", "))
        }
        if let constant = schema["const"], value != constant {
            return Problem(field: path, expected: JSONCodec.encodeString(constant))
        }
        if let alternatives = schema["oneOf"]?.arrayValue ?? schema["anyOf"]?.arrayValue {
            let matching = alternatives.filter { validate(value, against: $0, at: path) == nil }.count
            let exactlyOne = schema["oneOf"] != nil
            if matching == 0 || (exactlyOne && matching > 1) {
                let first = alternatives.lazy.compactMap { validate(value, against: $0, at: path) }.first
                return first ?? Problem(field: path, expected: "exactly one of the allowed forms")
            }
        }
        if let n = value.doubleValue {
            if let min = schema["minimum"]?.doubleValue, n < min { return Problem(field: path, expected: "at least \(format(min))") }
            if let max = schema["maximum"]?.doubleValue, n > max { return Problem(field: path, expected: "at most \(format(max))") }
        }
        if case .string(let s) = value {
            let length = s.unicodeScalars.count
            if let min = schema["minLength"]?.intValue, length < min { return Problem(field: path, expected: "at least \(min) characters long") }
            if let max = schema["maxLength"]?.intValue, length > max { return Problem(field: path, expected: "at most \(max) characters long") }
            if let pattern = schema["pattern"]?.stringValue, !matches(s, pattern: pattern) {
                return Problem(field: path, expected: "text matching \(pattern)")
            }
        }
        if case .array(let items) = value {
            if let min = schema["minItems"]?.intValue, items.count < min { return Problem(field: path, expected: "a list of at least \(min) items") }
            if let max = schema["maxItems"]?.intValue, items.count > max { return Problem(field: path, expected: "a list of at most \(max) items") }
            if let itemSchema = schema["items"] {
                for (i, item) in items.enumerated() {
                    if let p = validate(item, against: itemSchema, at: "\(path)[\(i)]") { return p }
                }
            }
        }
        if case .object(let o) = value {
            let properties = schema["properties"]?.objectValue ?? JSONObject()
            for key in schema["required"]?.arrayValue?.compactMap(\.stringValue) ?? [] where o[key] == nil {
                return Problem(field: join(path, key), expected: "given (it is required)")
            }
            for (key, v) in o.members {
                if let propertySchema = properties[key] {
                    if let p = validate(v, against: propertySchema, at: join(path, key)) { return p }
                } else if schema["additionalProperties"] == .bool(false) {
                    let known = properties.keys.joined(separator: ", ")
                    return Problem(field: join(path, key), expected: "absent: it is not a known argument (known: \(known))")
                }
            }
        }
        return nil
    }

    private static func matches(_ v: JSON, type: String) -> Bool {
        switch (type, v) {
        case ("null", .null), ("boolean", .bool), ("string", .string), ("array", .array), ("object", .object): true
        case ("integer", _): v.intValue != nil
        case ("number", .int), ("number", .double): true
        default: false
        }
    }

    /// A pattern the schema's author wrote; one that does not compile rejects nothing (the
    /// schema's tests validate the patterns themselves).
    private static func matches(_ s: String, pattern: String) -> Bool {
        guard let regex = try? Regex(pattern) else { return true }
        return (try? regex.firstMatch(in: s)) != nil
    }

    private static func join(_ a: String, _ b: String) -> String { a.isEmpty ? b : "\(a).\(b)" }

    private static func article(_ t: String) -> String {
        switch t {
        case "integer", "object", "array": "an \(t)"
        default: "a \(t)"
        }
    }

    private static func format(_ d: Double) -> String {
        d.rounded() == d && abs(d) < 1e15 ? String(Int64(d)) : String(d)
    }
}
