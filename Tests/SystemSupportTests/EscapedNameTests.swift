import SystemSupport
import Testing

/// The text of a file name: one text per byte string, back to the same bytes, and only that text
/// accepted back (so an escape never spells a separator, a dot segment or another name).
@Suite("Escaped file names")
struct EscapedNameTests {
    private func text(_ bytes: [UInt8]) -> String { bytes.withUnsafeBufferPointer { EscapedName.text($0) } }

    @Test("valid UTF-8 without a backslash is its own text")
    func plainNames() {
        for name in ["plain.txt", "café.md", "漢字 🙂", "100%.txt", "a:b", ""] {
            #expect(text(Array(name.utf8)) == name)
            #expect(EscapedName.bytes(name) == Array(name.utf8))
            #expect(EscapedName.isCanonical(name))
        }
    }

    @Test("bytes that are not UTF-8 and the backslash are \\x and two lowercase hex digits")
    func escapes() {
        #expect(text(Array("caf".utf8) + [0xE9] + Array(".txt".utf8)) == "caf\\xe9.txt")
        #expect(text(Array("a\\b".utf8)) == "a\\x5cb")
        #expect(text([0xC3]) == "\\xc3")                                // a cut sequence
        #expect(text([0xC0, 0xAF]) == "\\xc0\\xaf")                     // an overlong '/'
        #expect(text([0xED, 0xA0, 0x80]) == "\\xed\\xa0\\x80")          // a surrogate
        #expect(text([0xF4, 0x90, 0x80, 0x80]) == "\\xf4\\x90\\x80\\x80")  // above U+10FFFF
        #expect(text([0xE2, 0x82, 0xAC, 0xFF]) == "€\\xff")
    }

    @Test("every byte string comes back from its text, and that text is the canonical one")
    func roundTrip() {
        for b in 0...255 where b != 0 && b != 0x2F {
            for bytes in [[UInt8(b)], [0x61, UInt8(b), 0x62], [UInt8(b), 0x80], [0xE2, UInt8(b), 0xAC]] {
                let t = text(bytes)
                #expect(EscapedName.bytes(t) == bytes, "\(bytes)")
                #expect(EscapedName.isCanonical(t), "\(t)")
            }
        }
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let alphabet: [UInt8] = [0x5C, 0x78, 0x65, 0xC3, 0xA9, 0xE9, 0xFF, 0x41, 0xF0, 0x9F]
            let bytes: [UInt8] = (0..<Int.random(in: 1...24, using: &rng)).map { _ in alphabet[Int.random(in: 0..<10, using: &rng)] }
            let t = text(bytes)
            #expect(EscapedName.bytes(t) == bytes, "\(bytes)")
            #expect(EscapedName.isCanonical(t))
        }
    }

    @Test("no other spelling is canonical", arguments: [
        "caf\\xE9.txt", "caf\\xc3\\xa9", "\\x41", "a\\x2fb", "\\x2e\\x2e", "\\x00", "a\\b", "a\\x5", "a\\", "\\\\x5c", "\\x5C",
    ])
    func otherSpellings(_ spelling: String) {
        #expect(!EscapedName.isCanonical(spelling))
    }

    @Test("a name whose percent-decoding spells path syntax keeps its % as \\x25, per component")
    func percentTricks() {
        #expect(text(Array("a%2Fb".utf8)) == "a\\x252Fb")
        #expect(text(Array("%2e%2e".utf8)) == "\\x252e\\x252e")
        #expect(text(Array("%252e%252e".utf8)) == "\\x25252e\\x25252e")
        #expect(text(Array("100%/a%5Cb".utf8)) == "100%/a\\x255Cb")
        #expect(text(Array("100%.txt".utf8)) == "100%.txt" && text(Array("a%20b".utf8)) == "a%20b")
        for name in ["a%2Fb", "%2e%2e", "x%00", "%7Ehome", "100%/a%5Cb", "%2e"] {
            let t = text(Array(name.utf8))
            #expect(EscapedName.bytes(t) == Array(name.utf8) && EscapedName.isCanonical(t), "\(t)")
            #expect(!EscapedName.isCanonical(name) && EscapedName.spellsPathSyntaxWhenDecoded(name.split(separator: "/").last.map(String.init) ?? name))
        }
        #expect(!EscapedName.isCanonical("100\\x25.txt"))
    }

    @Test("onDisk is the name's bytes, NUL-terminated")
    func onDisk() {
        #expect("caf\\xe9".onDisk == [0x63, 0x61, 0x66, -23, 0])
        #expect("plain".onDisk == Array("plain".utf8CString))
    }
}
