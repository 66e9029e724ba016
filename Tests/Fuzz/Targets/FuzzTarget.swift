/// One fuzz target: a function of arbitrary bytes that checks invariants of the code under test.
///
/// `check` must accept every input without crashing; it throws `FuzzFailure` when an invariant
/// does not hold. The libFuzzer driver turns a failure into an abort (so the input is saved as
/// a crash); the replay tests turn it into a test failure naming the input file.
public protocol FuzzTarget: Sendable {
    /// The folder name under `Tests/Fuzz/corpus/` and `Tests/Fuzz/regressions/`.
    static var name: String { get }
    static func check(_ input: UnsafeRawBufferPointer) throws(FuzzFailure)
}

extension FuzzTarget {
    /// Runs the target on `bytes`: the broken invariant, or `nil` when all hold.
    public static func failure(for bytes: [UInt8]) -> FuzzFailure? {
        bytes.withUnsafeBytes { raw -> FuzzFailure? in
            do throws(FuzzFailure) {
                try check(raw)
                return nil
            } catch {
                return error
            }
        }
    }
}

/// A broken invariant, described for a human.
public struct FuzzFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Throws a `FuzzFailure` with `message` unless `condition` holds.
@inline(__always)
func require(_ condition: Bool, _ message: @autoclosure () -> String) throws(FuzzFailure) {
    if !condition { throw FuzzFailure(message()) }
}

/// Every target, by name (for the replay tests and the drivers).
public let allFuzzTargets: [any FuzzTarget.Type] = [
    FramingTarget.self, JSONTarget.self, PathTarget.self, JournalTarget.self, ArtefactNameTarget.self, PeerTarget.self,
]

/// Reads structured values off the front of a fuzz input; past the end every read answers 0,
/// so any input is a valid program for a target.
struct ByteReader {
    private let bytes: UnsafeRawBufferPointer
    private(set) var offset = 0

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    var isAtEnd: Bool { offset >= bytes.count }
    var remaining: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: bytes[min(offset, bytes.count)...]) }

    mutating func byte() -> UInt8 {
        guard offset < bytes.count else { return 0 }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func uint16() -> Int { Int(byte()) << 8 | Int(byte()) }

    mutating func take(_ n: Int) -> [UInt8] {
        let end = min(bytes.count, offset + max(0, n))
        defer { offset = end }
        return offset < end ? Array(bytes[offset..<end]) : []
    }
}

/// A small deterministic generator (SplitMix64), for choices derived from an input's bytes.
struct SplitMix {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(max(1, n))) }
}
