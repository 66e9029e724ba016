import JSON
import Testing

@Suite("Base64 and UTF-8 text")
struct Base64Tests {
    @Test("encodes and decodes every length and byte value")
    func roundTrip() {
        for n in 0..<70 {
            let bytes = (0..<n).map { UInt8(($0 * 37 + n) & 0xFF) }
            let text = Base64.encode(bytes)
            #expect(text.utf8.count == (n + 2) / 3 * 4)
            #expect(Base64.decode(text) == bytes)
        }
        #expect(Base64.encode(Array("foobar".utf8)) == "Zm9vYmFy")
        #expect(Base64.encode(Array("fo".utf8)) == "Zm8=")
    }

    @Test("refuses what is not standard padded base64", arguments: ["Zm9", "Zm9v!A==", "Zm-_", "Z===", "Zm9v\n"])
    func refuses(text: String) {
        #expect(Base64.decode(text) == nil)
    }

    @Test("UTF-8 checks: a truncated end may be cut back; bad sequences and mid-character starts are refused")
    func utf8() {
        func check(_ b: [UInt8], _ cut: Bool) -> Int? { b.withUnsafeBytes { UTF8Text.validPrefixLength($0, allowTruncatedEnd: cut) } }
        let e = Array("é".utf8)
        #expect(check(Array("abc".utf8) + e, false) == 5)
        #expect(check(Array("ab".utf8) + [e[0]], true) == 2)
        #expect(check(Array("ab".utf8) + [e[0]], false) == nil)
        #expect(check([e[1], 65], true) == nil)
        #expect(check([0xC3, 0x28], true) == nil)
        #expect(check([0xED, 0xA0, 0x80], true) == nil)  // a surrogate
        #expect(check([0xC0, 0x80], true) == nil)  // overlong NUL
    }

    @Test("UTF-8 text is the same prefix validPrefixLength accepts, for text and for byte soup, at every offset")
    func utf8Text() {
        func agree(_ b: [UInt8], _ cut: Bool, _ note: String) {
            let length = b.withUnsafeBytes { UTF8Text.validPrefixLength($0, allowTruncatedEnd: cut) }
            let text = b.withUnsafeBytes { UTF8Text.text($0, allowTruncatedEnd: cut) }
            #expect(text?.length == length, "\(note): \(b)")
            if let text, let length { #expect(Array(text.text.utf8) == Array(b.prefix(length)), "\(note)") }
        }
        let pieces: [[UInt8]] = [Array("a".utf8), Array("é".utf8), Array("✓".utf8), Array("😀".utf8), [0x80], [0xBF], [0xC0, 0x80],
                                 [0xC1], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xF5], [0xFF], [0xE0, 0x80, 0x80], [0]]
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<5000 {
            var b: [UInt8] = []
            for _ in 0..<Int.random(in: 0...12, using: &rng) { b += pieces.randomElement(using: &rng)! }
            // Also cut inside a character, as a byte range does.
            let cutAt = Int.random(in: 0...b.count, using: &rng)
            agree(b, true, "whole")
            agree(b, false, "whole")
            agree(Array(b.prefix(cutAt)), true, "prefix")
            agree(Array(b.prefix(cutAt)), false, "prefix")
        }
        // A bad or multi-byte character at every offset of a long ASCII run (the eight-byte path).
        for bad in pieces where bad != Array("a".utf8) {
            for offset in 0..<24 {
                let b = Array(repeating: UInt8(ascii: "x"), count: offset) + bad + Array(repeating: UInt8(ascii: "y"), count: 17)
                agree(b, true, "offset \(offset)")
                agree(Array(b.prefix(offset + bad.count - 1)), true, "cut at \(offset)")
            }
        }
    }
}
