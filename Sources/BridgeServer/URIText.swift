import SystemSupport

/// Percent-decoding of the path part of a URI (`file://` resources, `wsb:` documents), one
/// rule for every face.
package enum URIText {
    /// The decoded text; nil for a bad escape (`%` not followed by two hex digits). A URI names
    /// the bytes on disk: bytes that are not UTF-8 become the name's escaped text (`EscapedName`).
    package static func percentDecoded(_ s: String) -> String? {
        var out: [UInt8] = []
        let b = Array(s.utf8)
        var i = 0
        while i < b.count {
            if b[i] == UInt8(ascii: "%") {
                guard i + 2 < b.count, let v = UInt8(String(decoding: b[(i + 1)...(i + 2)], as: UTF8.self), radix: 16) else { return nil }
                out.append(v)
                i += 3
            } else {
                out.append(b[i])
                i += 1
            }
        }
        return out.withUnsafeBufferPointer { EscapedName.text($0) }
    }
}
