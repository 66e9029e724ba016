import SystemSupport
import Testing

@Suite("Case-insensitive search folding")
struct CaseFoldTests {
    private func bytewise(_ bytes: [UInt8]) -> [UInt8] { bytes.map { $0 >= 65 && $0 <= 90 ? $0 | 0x20 : $0 } }

    private func folded(_ bytes: [UInt8]) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: bytes.count) { out, count in
            bytes.withUnsafeBytes { TextMatcher.foldASCII($0, into: UnsafeMutableRawBufferPointer(out)) }
            count = bytes.count
        }
    }

    @Test("lowers exactly A-Z, eight bytes at a time and in the tail, and leaves every other byte (UTF-8 included) as it is")
    func everyByteEverywhere() {
        for b in 0...255 {
            for offset in 0..<19 {
                var bytes = [UInt8](repeating: UInt8(ascii: "q"), count: 19)
                bytes[offset] = UInt8(b)
                #expect(folded(bytes) == bytewise(bytes), "byte \(b) at \(offset)")
            }
        }
        var rng = SystemRandomNumberGenerator()
        for n in [0, 1, 7, 8, 9, 63, 64, 1000] {
            let bytes = (0..<n).map { _ in UInt8.random(in: 0...255, using: &rng) }
            #expect(folded(bytes) == bytewise(bytes))
        }
        #expect(folded(Array("Ünïcode ÄÖÜ ZAZ".utf8)) == Array("Ünïcode ÄÖÜ zaz".utf8))
    }
}
