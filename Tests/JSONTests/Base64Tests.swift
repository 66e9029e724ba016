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
}
