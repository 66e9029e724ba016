/// An insertion-ordered JSON object.
///
/// Keys are unique; setting an existing key replaces its value in place (keeping its
/// position); setting `nil` removes it. Lookups are O(1) through an index built lazily only
/// for objects large enough to need it; small objects (the common case in protocol
/// messages) are scanned linearly, which is faster than hashing for a handful of keys.
public struct JSONObject: Sendable, Equatable {
    public private(set) var keys: [String] = []
    private var values: [JSON] = []
    /// Key → position, kept only once the object is large enough for hashing to pay off.
    private var lookup: [String: Int]? = nil
    private static let indexThreshold = 12

    public init() {}

    public init(_ pairs: [(String, JSON)]) {
        for (k, v) in pairs { self[k] = v }
    }

    public var count: Int { keys.count }
    public var isEmpty: Bool { keys.isEmpty }

    private func index(of key: String) -> Int? {
        if let lookup { return lookup[key] }
        return keys.firstIndex(of: key)
    }

    private mutating func didAppend(_ key: String) {
        if lookup != nil {
            lookup![key] = keys.count - 1
        } else if keys.count > Self.indexThreshold {
            var l = [String: Int](minimumCapacity: keys.count * 2)
            for (i, k) in keys.enumerated() { l[k] = i }
            lookup = l
        }
    }

    public subscript(key: String) -> JSON? {
        get { index(of: key).map { values[$0] } }
        set {
            if let i = index(of: key) {
                if let newValue { values[i] = newValue } else {
                    keys.remove(at: i)
                    values.remove(at: i)
                    lookup = nil
                    if keys.count > Self.indexThreshold {
                        var l = [String: Int](minimumCapacity: keys.count * 2)
                        for (i, k) in keys.enumerated() { l[k] = i }
                        lookup = l
                    }
                }
            } else if let newValue {
                keys.append(key)
                values.append(newValue)
                didAppend(key)
            }
        }
    }

    /// Appends without checking for an existing key. Only for decoders that already know
    /// the keys are unique (jansson rejects duplicates for us).
    mutating func appendUnchecked(_ key: String, _ value: JSON) {
        keys.append(key)
        values.append(value)
        didAppend(key)
    }

    public mutating func reserveCapacity(_ n: Int) {
        keys.reserveCapacity(n)
        values.reserveCapacity(n)
    }

    /// Members in insertion order.
    public var members: Zip2Sequence<[String], [JSON]> { zip(keys, values) }

    public static func == (a: JSONObject, b: JSONObject) -> Bool {
        guard a.count == b.count else { return false }
        for (k, v) in a.members where b[k] != v { return false }
        return true
    }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, JSON)...) {
        self.init(elements.map { ($0.0, $0.1) })
    }
}
