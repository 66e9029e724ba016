import CJansson

/// Dumps a run of array elements with jansson, each element with its own `json_dumpb` into one
/// buffer, commas between: `[e1,e2,…]`, byte for byte what `json_dumpb` of the array writes
/// (compact output writes an array as its elements between commas, and an element's text does
/// not depend on where it stands).
///
/// A listing or search page is thousands of flat objects with the same keys. Building and
/// freeing a jansson tree of them costs some 20 allocations per element; here one jansson
/// object is kept for the run and only its values change: a string or integer value is set in
/// place (`json_string_setn_nocheck`, `json_integer_set`), the keys are never rebuilt. An element
/// that is not such an object (other keys, nested arrays or objects, another type) is built and
/// dumped on its own. jansson still writes every byte. Not thread-safe: one per part.
struct ArrayPartDump {
    /// The reused object, and its keys in order (jansson keeps insertion order).
    private var template: UnsafeMutablePointer<json_t>?
    private var keys: [String] = []
    /// Set when jansson could not allocate a value (see `JanssonTree`).
    private var outOfMemory = false

    /// The compact text of `elements` as one JSON array (empty when jansson cannot allocate).
    static func dump(_ elements: ArraySlice<JSON>) -> [UInt8] {
        let capacity = bound(elements)
        return [UInt8](unsafeUninitializedCapacity: capacity) { buf, count in
            // `capacity` is at least 2 (the brackets): the buffer has a start.
            guard let out = buf.baseAddress else { count = 0; return }
            count = dump(elements, into: out, capacity: capacity) ?? 0
        }
    }

    /// An upper bound of the size of `elements`' text as one array.
    static func bound(_ elements: ArraySlice<JSON>) -> Int {
        elements.reduce(2) { $0 + estimate($1) + 1 }
    }

    /// Writes the compact text of `elements` as one JSON array at `out` (at least
    /// `bound(elements)` bytes) and returns its size; nil when jansson could not allocate.
    static func dump(_ elements: ArraySlice<JSON>, into out: UnsafeMutablePointer<UInt8>, capacity: Int) -> Int? {
        var part = ArrayPartDump()
        defer { if let t = part.template { wb_json_decref(t) } }
        let flags = wb_json_dump_flags()
        let base = UnsafeMutableRawPointer(out).assumingMemoryBound(to: CChar.self)
        var at = 0
        base[at] = 0x5B; at += 1  // `[`, where jansson's array dump has it
        for (i, e) in elements.enumerated() {
            if i > 0 { base[at] = 0x2C; at += 1 }  // `,`, where jansson's array dump has it
            let (j, owned) = part.value(for: e)
            let n = json_dumpb(j, base + at, capacity - at, flags)
            if owned { wb_json_decref(j) }
            if part.outOfMemory || n == 0 { return nil }  // no value's text is empty: jansson failed
            precondition(n < capacity - at, "jansson's output exceeds its estimate")
            at += n
        }
        base[at] = 0x5D; at += 1  // `]`
        return at
    }

    /// The jansson value of `e`, and whether the caller owns (must free) it.
    private mutating func value(for e: JSON) -> (UnsafeMutablePointer<json_t>, Bool) {
        guard case .object(let o) = e, o.members.allSatisfy({ Self.isScalar($0.value) }) else {
            var tree = JanssonTree(splicing: false)
            let made = tree.make(e)
            if tree.outOfMemory { outOfMemory = true }
            return (made, true)
        }
        if let t = template, o.count == keys.count, update(t, from: o) { return (t, false) }
        if let t = template { wb_json_decref(t) }
        var tree = JanssonTree(splicing: false)
        let made = tree.make(e)
        if tree.outOfMemory { outOfMemory = true }
        template = made
        keys = o.members.map(\.key)
        return (made, false)
    }

    /// Sets the values of `t` (whose keys are `keys`) to those of `o`; false, with `t` left
    /// half updated, when `o`'s keys differ.
    private mutating func update(_ t: UnsafeMutablePointer<json_t>, from o: JSONObject) -> Bool {
        var it = json_object_iter(t)
        for (k, m) in zip(keys, o.members) {
            guard let cur = it, k == m.key, let v = json_object_iter_value(cur) else { return false }
            switch (m.value, wb_json_typeof(v)) {
            case (.string(var s), JSON_STRING):
                if s.withUTF8({ json_string_setn_nocheck(v, JanssonTree.chars($0), $0.count) }) != 0 { outOfMemory = true }
            case (.int(let i), JSON_INTEGER):
                json_integer_set(v, json_int_t(i))
            default:
                var tree = JanssonTree(splicing: false)
                if json_object_iter_set_new(t, cur, tree.make(m.value)) != 0 || tree.outOfMemory { outOfMemory = true }
            }
            it = json_object_iter_next(t, cur)
        }
        return true
    }

    private static func isScalar(_ v: JSON) -> Bool {
        switch v {
        case .array, .object: false
        default: true
        }
    }

    /// An upper bound of the compact text of `v` (as `JanssonTree.estimate` adds it up).
    static func estimate(_ v: JSON) -> Int {
        switch v {
        case .null: 4
        case .bool: 5
        case .int: 20
        case .double: 26
        case .string(let s): s.utf8.count * 6 + 2
        case .array(let a): a.reduce(2) { $0 + estimate($1) + 1 }
        case .object(let o): o.members.reduce(2) { $0 + $1.key.utf8.count * 6 + 4 + estimate($1.value) }
        }
    }
}
