/// The top-level `"id"` of a JSON-RPC message of which only the first bytes were kept (a line
/// refused as too large: `FrameDecoder.oversizeHead`), so the request waiting for that answer
/// can be told it was dropped.
///
/// Reads only: the members before `"id"` are skipped by their nesting, strings with their
/// escapes; `nil` when the head ends first, is not an object, or the id is neither an integer nor a
/// string without escapes (a message whose id comes after a huge member cannot be matched).
enum OversizeHead {
    static func requestID(_ head: [UInt8]) -> RequestID? {
        var i = 0
        func space() { while i < head.count, [32, 9, 10, 13].contains(head[i]) { i += 1 } }
        /// A string starting at `i` (on its quote): its raw bytes, `i` after the closing quote.
        func string() -> (bytes: ArraySlice<UInt8>, escaped: Bool)? {
            guard i < head.count, head[i] == 34 else { return nil }
            let start = i + 1
            var escaped = false
            i += 1
            while i < head.count {
                switch head[i] {
                case 92: escaped = true; i += 2
                case 34: i += 1; return (head[start..<(i - 1)], escaped)
                default: i += 1
                }
            }
            return nil
        }
        /// Skips one value of any kind; false when the head ends inside it.
        func skipValue() -> Bool {
            var depth = 0
            while i < head.count {
                switch head[i] {
                case 34: guard string() != nil else { return false }; if depth == 0 { return true }; continue
                case 123, 91: depth += 1
                case 125, 93:
                    depth -= 1
                    if depth == 0 { i += 1; return true }
                    if depth < 0 { return true }
                case 44: if depth == 0 { return true }
                default: break
                }
                i += 1
            }
            return false
        }
        space()
        guard i < head.count, head[i] == 123 else { return nil }
        i += 1
        while true {
            space()
            guard let (key, _) = string() else { return nil }
            space()
            guard i < head.count, head[i] == 58 else { return nil }
            i += 1
            space()
            if key.elementsEqual("id".utf8) {
                if let (bytes, escaped) = string() { return escaped ? nil : .string(String(decoding: bytes, as: UTF8.self)) }
                let start = i
                while i < head.count, head[i] == 45 || (48...57).contains(head[i]) { i += 1 }
                guard i < head.count, i > start else { return nil }  // the number may go on past the head
                return Int64(String(decoding: head[start..<i], as: UTF8.self)).map(RequestID.int)
            }
            guard skipValue() else { return nil }
            space()
            guard i < head.count, head[i] == 44 else { return nil }
            i += 1
        }
    }
}
