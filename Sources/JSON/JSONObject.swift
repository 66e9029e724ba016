/// An insertion-ordered JSON object.
///
/// Keys are unique; setting an existing key replaces its value in place (keeping its
/// position); setting `nil` removes it. Lookups are O(1) through an index built lazily only
/// for objects large enough to need it; small objects (the common case in protocol
/// messages) are scanned linearly, which is faster than hashing for a handful of keys.
/// Members are kept as one array of pairs: one allocation per object, one reference to copy.
public struct JSONObject: Sendable, Equatable {
    public typealias Member = (key: String, value: JSON)

    /// Members in insertion order.
    public private(set) var members: [Member] = []
    /// Key → position, kept only once the object is large enough for hashing to pay off.
    private var lookup: [String: Int]? = nil
    private static let indexThreshold = 12

    public init() {}

    public init(_ pairs: [(String, JSON)]) {
        members.reserveCapacity(pairs.count)
        for (k, v) in pairs { self[k] = v }
    }

    public var count: Int { members.count }
    public var isEmpty: Bool { members.isEmpty }
    /// The keys in insertion order.
    public var keys: [String] { members.map(\.key) }

    private func index(of key: String) -> Int? {
        if let lookup { return lookup[key] }
        // Comparing lengths first skips most string comparisons.
        let n = key.utf8.count
        return members.firstIndex { $0.key.utf8.count == n && $0.key == key }
    }

    private mutating func didAppend(_ key: String) {
        if lookup != nil {
            lookup?[key] = members.count - 1
        } else if members.count > Self.indexThreshold {
            rebuildLookup()
        }
    }

    private mutating func rebuildLookup() {
        var l = [String: Int](minimumCapacity: members.count * 2)
        for (i, m) in members.enumerated() { l[m.key] = i }
        lookup = l
    }

    public subscript(key: String) -> JSON? {
        get { index(of: key).map { members[$0].value } }
        set {
            if let i = index(of: key) {
                if let newValue { members[i].value = newValue } else {
                    members.remove(at: i)
                    lookup = nil
                    if members.count > Self.indexThreshold { rebuildLookup() }
                }
            } else if let newValue {
                members.append((key, newValue))
                didAppend(key)
            }
        }
    }

    /// Appends without checking for an existing key. Only for decoders that already know
    /// the keys are unique (jansson rejects duplicates for us).
    mutating func appendUnchecked(_ key: String, _ value: JSON) {
        members.append((key, value))
        didAppend(key)
    }

    public mutating func reserveCapacity(_ n: Int) {
        members.reserveCapacity(n)
    }

    public static func == (a: JSONObject, b: JSONObject) -> Bool {
        guard a.count == b.count else { return false }
        for (k, v) in a.members where b[k] != v { return false }
        return true
    }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, JSON)...) {
        self.init(elements)
    }
}
