import JSON

/// A value with a journal form: a list of fields, declared once in the order they are written,
/// from which both `stored` (the record a journal, snapshot or export holds) and
/// `init?(stored:)` (reading it back) are derived, so the two cannot disagree. The field list
/// is the journal's format: reordering or renaming a field changes the bytes every earlier
/// journal holds (`StoredFormTests` pins them).
protocol StoredForm: StoredValue {
    static var storedFields: [StoredField<Self>] { get }
    /// The value a record's fields are read into: each field it has sets its part, a required
    /// field that is missing or of the wrong type refuses the record.
    static var unread: Self { get }
}

extension StoredForm {
    var stored: JSON {
        var o = JSONObject()
        for f in Self.storedFields { if let v = f.write(self) { o[f.key] = v } }
        return .object(o)
    }

    /// Nil when `j` is not an object or a required field is missing or unreadable.
    init?(stored j: JSON?) {
        guard case .object(let o)? = j else { return nil }
        var value = Self.unread
        for f in Self.storedFields { guard f.read(o[f.key], &value) else { return nil } }
        self = value
    }

    /// The record read strictly, for a value a caller hands us whole (an import's config, the
    /// same object a request carries): `InvalidArgument` naming the first field refused and what
    /// it should be (`<name>.maxTurns must be an integer >= 0`), as `init?(stored:)` would refuse it.
    init(checking j: JSON, as name: String) throws(SessionError) {
        guard case .object(let o) = j else { throw .invalid("\(name) must be an object, got \(j.typeName)") }
        var value = Self.unread
        for f in Self.storedFields {
            guard f.read(o[f.key], &value) else { throw .invalid("\(name).\(f.key) must be \(f.expected)") }
        }
        self = value
    }

    /// A record held inside another record (a session's lineage, its compactions).
    var storedJSON: JSON { stored }
    init?(storedJSON j: JSON) { self.init(stored: j) }
}

/// One field of a journal record: its key, how it is written (nil: left out) and how it is read
/// into the value (false: the record is refused).
struct StoredField<T>: Sendable {
    let key: String
    let write: @Sendable (T) -> JSON?
    let read: @Sendable (JSON?, inout T) -> Bool
    /// What a value the field refuses should have been, for `init(checking:as:)`'s message.
    var expected = "readable"

    /// The same field, saying what its value should be when it refuses one.
    func expecting(_ what: String) -> Self {
        var f = self
        f.expected = what
        return f
    }

    /// Always written; a record without it (or with a value of another type, or one `accept`
    /// refuses) is refused.
    static func required<V: StoredValue>(_ key: String, _ path: any WritableKeyPath<T, V> & Sendable,
                                         accept: @escaping @Sendable (V) -> Bool = { _ in true }) -> Self {
        Self(key: key, write: { $0[keyPath: path].storedJSON }) { j, t in
            guard let v = j.flatMap(V.init(storedJSON:)), accept(v) else { return false }
            t[keyPath: path] = v
            return true
        }
    }

    /// Always written; read as `fallback` when missing or unreadable.
    static func always<V: StoredValue>(_ key: String, _ path: any WritableKeyPath<T, V> & Sendable, else fallback: V) -> Self {
        Self(key: key, write: { $0[keyPath: path].storedJSON }) { j, t in
            t[keyPath: path] = j.flatMap(V.init(storedJSON:)) ?? fallback
            return true
        }
    }

    /// Written only when it is not `usual` (so records of the usual case read the same in older
    /// versions); read as `usual` when missing or unreadable.
    static func unlessUsual<V: StoredValue & Equatable>(_ key: String, _ path: any WritableKeyPath<T, V> & Sendable,
                                                        _ usual: V) -> Self {
        // Not a ternary: its `nil` would be the JSON `null` (`JSON` is nil-literal expressible), written.
        Self(key: key, write: { t -> JSON? in
            let v = t[keyPath: path]
            guard v != usual else { return nil }
            return v.storedJSON
        }) { j, t in
            t[keyPath: path] = j.flatMap(V.init(storedJSON:)) ?? usual
            return true
        }
    }

    /// Written when it has a value; read as nil when missing, unreadable or refused by `accept`.
    static func optional<V: StoredValue>(_ key: String, _ path: any WritableKeyPath<T, V?> & Sendable,
                                         accept: @escaping @Sendable (V) -> Bool = { _ in true }) -> Self {
        Self(key: key, write: { $0[keyPath: path]?.storedJSON }) { j, t in
            t[keyPath: path] = j.flatMap(V.init(storedJSON:)).flatMap { accept($0) ? $0 : nil }
            return true
        }
    }

    /// A list written only when it is not empty; read leniently, each unreadable element left
    /// out (a list of independent facts: one damaged entry does not cost the others).
    static func list<V: StoredValue>(_ key: String, _ path: any WritableKeyPath<T, [V]> & Sendable) -> Self {
        Self(key: key, write: { t -> JSON? in
            let list = t[keyPath: path]
            return list.isEmpty ? JSON?.none : list.storedJSON
        }) { j, t in
            t[keyPath: path] = (j?.arrayValue ?? []).compactMap(V.init(storedJSON:))
            return true
        }
    }

    /// Written when it has a value; missing or `null`, it is nil; present but unreadable (or
    /// refused by `accept`), the record is refused (for a field whose damage would mislead, like
    /// where a compaction's originals are, or a budget limit).
    static func optionalStrict<V: StoredValue>(_ key: String, _ path: any WritableKeyPath<T, V?> & Sendable,
                                               accept: @escaping @Sendable (V) -> Bool = { _ in true }) -> Self {
        Self(key: key, write: { $0[keyPath: path]?.storedJSON }) { j, t in
            guard let j, !j.isNull else {
                t[keyPath: path] = nil
                return true
            }
            guard let v = V(storedJSON: j), accept(v) else { return false }
            t[keyPath: path] = v
            return true
        }
    }
}

/// A value one journal field holds, with its one JSON encoding and reading.
protocol StoredValue: Sendable {
    var storedJSON: JSON { get }
    init?(storedJSON: JSON)
}

extension String: StoredValue {
    var storedJSON: JSON { .string(self) }
    init?(storedJSON j: JSON) { if let s = j.stringValue { self = s } else { return nil } }
}

extension Int64: StoredValue {
    var storedJSON: JSON { .int(self) }
    init?(storedJSON j: JSON) { if let i = j.intValue { self = i } else { return nil } }
}

extension Int: StoredValue {
    var storedJSON: JSON { JSON(self) }
    init?(storedJSON j: JSON) { if let i = j.intValue.flatMap({ Int(exactly: $0) }) { self = i } else { return nil } }
}

extension Double: StoredValue {
    var storedJSON: JSON { .double(self) }
    init?(storedJSON j: JSON) { if let d = j.doubleValue { self = d } else { return nil } }
}

extension Bool: StoredValue {
    var storedJSON: JSON { .bool(self) }
    init?(storedJSON j: JSON) { if let b = j.boolValue { self = b } else { return nil } }
}

/// Any JSON value, kept as it is (content, arguments, a payload).
extension JSON: StoredValue {
    var storedJSON: JSON { self }
    init?(storedJSON j: JSON) { self = j }
}

/// An array read whole: one unreadable element refuses it.
extension Array: StoredValue where Element: StoredValue {
    var storedJSON: JSON { .array(map(\.storedJSON)) }
    init?(storedJSON j: JSON) {
        guard let list = j.arrayValue else { return nil }
        var out: [Element] = []
        out.reserveCapacity(list.count)
        for e in list {
            guard let v = Element(storedJSON: e) else { return nil }
            out.append(v)
        }
        self = out
    }
}

/// An enum stored as its raw string (an unknown string reads as unreadable).
protocol StoredRawValue: StoredValue, RawRepresentable where RawValue == String {}

extension StoredRawValue {
    var storedJSON: JSON { .string(rawValue) }
    init?(storedJSON j: JSON) { if let v = j.stringValue.flatMap(Self.init(rawValue:)) { self = v } else { return nil } }
}

extension MessageRole: StoredRawValue {}
extension ToolEffect: StoredRawValue {}
extension Approval.Decision: StoredRawValue {}
extension Lineage.Kind: StoredRawValue {}
extension QueueItem.Status: StoredRawValue {}
extension ModelTier: StoredRawValue {}
