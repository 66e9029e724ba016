/// Standard base64 (RFC 4648, with padding), for carrying bytes inside JSON strings.
public enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    private static let decodeTable: [UInt8] = {
        var t = [UInt8](repeating: 0xFF, count: 256)
        for (i, c) in alphabet.enumerated() { t[Int(c)] = UInt8(i) }
        return t
    }()

    public static func encode(_ bytes: UnsafeRawBufferPointer) -> String {
        let n = bytes.count
        let outCount = (n + 2) / 3 * 4
        return String(unsafeUninitializedCapacity: outCount) { out in
            alphabet.withUnsafeBufferPointer { a in
                var i = 0, o = 0
                while i + 3 <= n {
                    let v = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
                    out[o] = a[Int(v >> 18)]; out[o + 1] = a[Int(v >> 12 & 63)]
                    out[o + 2] = a[Int(v >> 6 & 63)]; out[o + 3] = a[Int(v & 63)]
                    i += 3; o += 4
                }
                if n - i == 1 {
                    let v = UInt32(bytes[i]) << 16
                    out[o] = a[Int(v >> 18)]; out[o + 1] = a[Int(v >> 12 & 63)]; out[o + 2] = 61; out[o + 3] = 61
                    o += 4
                } else if n - i == 2 {
                    let v = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8
                    out[o] = a[Int(v >> 18)]; out[o + 1] = a[Int(v >> 12 & 63)]; out[o + 2] = a[Int(v >> 6 & 63)]; out[o + 3] = 61
                    o += 4
                }
                return o
            }
        }
    }

    public static func encode(_ bytes: [UInt8]) -> String {
        bytes.withUnsafeBytes { encode($0) }
    }

    /// Decodes standard base64; `nil` for anything else (wrong alphabet, bad length or padding).
    public static func decode(_ text: String) -> [UInt8]? {
        var text = text
        return text.withUTF8 { u -> [UInt8]? in
            guard u.count % 4 == 0 else { return nil }
            if u.isEmpty { return [] }
            let pad = u[u.count - 1] == 61 ? (u[u.count - 2] == 61 ? 2 : 1) : 0
            let outCount = u.count / 4 * 3 - pad
            var ok = true
            let out = [UInt8](unsafeUninitializedCapacity: outCount) { buf, filled in
                decodeTable.withUnsafeBufferPointer { t in
                    var o = 0
                    var i = 0
                    while i < u.count {
                        let last = i + 4 == u.count
                        let c0 = t[Int(u[i])], c1 = t[Int(u[i + 1])]
                        let c2 = last && pad == 2 ? 0 : t[Int(u[i + 2])]
                        let c3 = last && pad >= 1 ? 0 : t[Int(u[i + 3])]
                        if (c0 | c1 | c2 | c3) & 0xC0 != 0 { ok = false; break }
                        let v = UInt32(c0) << 18 | UInt32(c1) << 12 | UInt32(c2) << 6 | UInt32(c3)
                        buf[o] = UInt8(v >> 16)
                        if o + 1 < outCount { buf[o + 1] = UInt8(v >> 8 & 0xFF) }
                        if o + 2 < outCount { buf[o + 2] = UInt8(v & 0xFF) }
                        o += 3
                        i += 4
                    }
                    filled = ok ? outCount : 0
                }
            }
            return ok ? out : nil
        }
    }
}

/// UTF-8 checks for byte ranges that must be carried as JSON text.
public enum UTF8Text {
    /// The length of the longest prefix of `bytes` made of whole, valid UTF-8 characters that
    /// drops at most an incomplete character at the end; nil when the bytes are not UTF-8 text
    /// (an invalid sequence, or a range starting inside a character).
    public static func validPrefixLength(_ bytes: UnsafeRawBufferPointer, allowTruncatedEnd: Bool) -> Int? {
        let n = bytes.count
        var i = 0
        while i < n {
            // ASCII, eight bytes at a time.
            if i + 8 <= n && bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                i += 8
                continue
            }
            let b = bytes[i]
            if b < 0x80 { i += 1; continue }
            let len: Int
            switch b {
            case 0xC2...0xDF: len = 2
            case 0xE0...0xEF: len = 3
            case 0xF0...0xF4: len = 4
            default: return nil
            }
            if i + len > n {
                // An incomplete character at the end: fine if the bytes so far are valid.
                for k in (i + 1)..<n where bytes[k] & 0xC0 != 0x80 { return nil }
                return allowTruncatedEnd ? i : nil
            }
            for k in (i + 1)..<(i + len) where bytes[k] & 0xC0 != 0x80 { return nil }
            let b1 = bytes[i + 1]
            if b == 0xE0 && b1 < 0xA0 { return nil }  // overlong
            if b == 0xED && b1 > 0x9F { return nil }  // surrogates
            if b == 0xF0 && b1 < 0x90 { return nil }  // overlong
            if b == 0xF4 && b1 > 0x8F { return nil }  // beyond U+10FFFF
            i += len
        }
        return n
    }

    /// The longest prefix of `bytes` that `validPrefixLength` accepts, as a string, and its length
    /// in bytes; nil when the bytes are not UTF-8 text. The bytes are validated once (by the
    /// standard library); only a possibly incomplete character at the end is looked at here.
    public static func text(_ bytes: UnsafeRawBufferPointer, allowTruncatedEnd: Bool) -> (text: String, length: Int)? {
        var end = bytes.count
        if allowTruncatedEnd {
            // The last character's lead byte is at most three continuation bytes back.
            var j = end - 1
            while j >= 0 && j >= end - 4 && bytes[j] & 0xC0 == 0x80 { j -= 1 }
            if j >= 0 && j >= end - 4 {
                let lead = bytes[j]
                let len = lead >= 0xC2 && lead <= 0xDF ? 2 : lead >= 0xE0 && lead <= 0xEF ? 3 : lead >= 0xF0 && lead <= 0xF4 ? 4 : 1
                if j + len > end { end = j }
            }
        }
        guard let text = String(validating: UnsafeRawBufferPointer(rebasing: bytes[0..<end]), as: UTF8.self) else { return nil }
        return (text, end)
    }
}
