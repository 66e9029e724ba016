import FuzzTargets
import Testing

/// Every stored fuzz input (the seed corpus and each crash the fuzzer ever found) replayed
/// through its target, without the fuzzer or sanitizers: a regression fails `swift test`.
@Suite("Fuzz corpus replay")
struct FuzzReplayTests {
    @Test("each target's seed corpus and regression inputs hold its invariants",
          arguments: allFuzzTargets.map { $0.name })
    func replay(_ name: String) throws {
        let target = try #require(allFuzzTargets.first { $0.name == name })
        let inputs = FuzzInputs.defaultFolders(for: target).flatMap { FuzzInputs.files(at: $0) }
        #expect(inputs.count >= 3, "the \(name) seed corpus is missing (\(FuzzInputs.fuzzFolder))")
        for (path, bytes) in inputs {
            if let failure = target.failure(for: bytes) {
                Issue.record("\(path): \(failure)")
            }
        }
    }
}
