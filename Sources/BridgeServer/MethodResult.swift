import JSON
import Workspace

/// A value a result carries, with its one encoding to `JSON` and the JSON Schema type of that
/// encoding (nil: any JSON value), which the schema agreement check compares.
package protocol ResultValue: Sendable {
    var json: JSON { get }
    static var jsonType: String? { get }
}

/// A method's result: what its handler returns, encoded once (`json`), with the shape the schema
/// agreement check compares derived from the same type (`shape`).
package protocol MethodResult: ResultValue {
    static var shape: ResultShape { get }
}

/// A result that is a JSON object: its fields, declared once in the order they are sent. Both
/// `json` and `shape` (names, types, which are optional) come from `fields`, so the answer and
/// the declared shape cannot differ. An optional field whose value is nil is left out.
package protocol ObjectResult: MethodResult {
    static var fields: [ResultField<Self>] { get }
}

extension ObjectResult {
    package var json: JSON {
        var o = JSONObject()
        for f in Self.fields { if let v = f.value(self) { o[f.name] = v } }
        return .object(o)
    }

    package static var jsonType: String? { "object" }
    package static var shape: ResultShape { .object(fields.map(\.shape)) }
}

/// One field of an `ObjectResult`: its name, its type and how it is read from the result.
package struct ResultField<R>: Sendable {
    package let shape: ResultFieldShape
    let value: @Sendable (R) -> JSON?

    package var name: String { shape.name }

    /// A field always sent.
    package static func field<V: ResultValue>(_ name: String, _ get: @escaping @Sendable (R) -> V) -> ResultField {
        ResultField(shape: ResultFieldShape(name: name, type: V.jsonType), value: { get($0).json })
    }

    /// A field sent only when it has a value.
    package static func field<V: ResultValue>(_ name: String, _ get: @escaping @Sendable (R) -> V?) -> ResultField {
        ResultField(shape: ResultFieldShape(name: name, type: V.jsonType, optional: true), value: { get($0)?.json })
    }

    /// A field always sent, `null` when it has no value.
    package static func nullable<V: ResultValue>(_ name: String, _ get: @escaping @Sendable (R) -> V?) -> ResultField {
        ResultField(shape: ResultFieldShape(name: name, type: V.jsonType, nullable: true), value: { get($0)?.json ?? .null })
    }
}

/// A result field as the schema agreement check sees it.
package struct ResultFieldShape: Sendable, Equatable {
    package var name: String
    /// The JSON Schema type (nil: any value).
    package var type: String?
    /// Left out when it has no value.
    package var optional = false
    /// Sent as `null` when it has no value.
    package var nullable = false
}

/// An object result without fields (`{}`).
package struct EmptyResult: ObjectResult {
    package init() {}
    package static var fields: [ResultField<Self>] { [] }
}

/// A `null` result (an acknowledgement).
package struct NullResult: MethodResult {
    package init() {}
    package var json: JSON { .null }
    package static var jsonType: String? { "null" }
    package static var shape: ResultShape { .null }
}

/// A result with no shape to compare: a value the client chose, or none from a method that only
/// fails (`debug/fail`).
package struct ChosenResult: MethodResult {
    package var value: JSON
    package var json: JSON { value }
    package static var jsonType: String? { nil }
    package static var shape: ResultShape { .any }
}

/// A result that is an array of `Element`s.
extension Array: ResultValue where Element: ResultValue {
    package var json: JSON { .array(map(\.json)) }
    package static var jsonType: String? { "array" }
}

extension Array: MethodResult where Element: ResultValue {
    package static var shape: ResultShape { .array }
}

extension String: ResultValue {
    package var json: JSON { .string(self) }
    package static var jsonType: String? { "string" }
}

extension Bool: ResultValue {
    package var json: JSON { .bool(self) }
    package static var jsonType: String? { "boolean" }
}

extension Int64: ResultValue {
    package var json: JSON { .int(self) }
    package static var jsonType: String? { "integer" }
}

extension Int: ResultValue {
    package var json: JSON { .int(Int64(self)) }
    package static var jsonType: String? { "integer" }
}

extension Double: ResultValue {
    package var json: JSON { .double(self) }
    package static var jsonType: String? { "number" }
}

extension WorkspacePath: ResultValue {
    package var json: JSON { .string(string) }
    package static var jsonType: String? { "string" }
}

/// A JSON value carried as it is (a settings value, an opaque object the client gave us).
extension JSON: ResultValue {
    package var json: JSON { self }
    package static var jsonType: String? { nil }
}

/// An object carried as it is (capabilities, a schema).
extension JSONObject: ResultValue {
    package var json: JSON { .object(self) }
    package static var jsonType: String? { "object" }
}

/// An untyped result: a declaration that still answers a hand-built `JSON` compiles, and the
/// schema agreement check reports it (`ResultShape.untyped`) until it names a typed `Result`.
extension JSON: MethodResult {
    package static var shape: ResultShape { .untyped }
}
