#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The `main` of every fuzz executable.
///
/// Built with `-DFUZZING` and `-sanitize=fuzzer` (see `Tests/Fuzz/run.sh`), it hands the
/// command line to libFuzzer; an input that breaks an invariant prints the failure and aborts,
/// so libFuzzer saves it as a crash. Built normally, it replays the files and folders named on
/// the command line (the target's seed corpus and regressions when none are named) and exits
/// non-zero if any input fails.
public enum FuzzDriver {
    public static func main(_ target: any FuzzTarget.Type) -> Never {
        #if FUZZING
        current = target
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv, fuzzOneInput))
        #else
        var paths = Array(CommandLine.arguments.dropFirst())
        if paths.isEmpty { paths = FuzzInputs.defaultFolders(for: target) }
        var failures = 0
        let inputs = paths.flatMap { FuzzInputs.files(at: $0) }
        for (path, bytes) in inputs {
            if let failure = target.failure(for: bytes) {
                failures += 1
                print("FAIL \(path): \(failure)")
            }
        }
        print("\(target.name): \(inputs.count) inputs replayed, \(failures) failed")
        exit(failures == 0 ? 0 : 1)
        #endif
    }
}

#if FUZZING
nonisolated(unsafe) private var current: (any FuzzTarget.Type)?

@_silgen_name("LLVMFuzzerRunDriver")
private func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

/// libFuzzer's entry point (its own `main` refers to it; ours calls `LLVMFuzzerRunDriver`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let target = current else { fatalError("no fuzz target selected") }
    do {
        try target.check(UnsafeRawBufferPointer(start: data, count: size))
    } catch {
        let text = Array("\(target.name): invariant broken: \(error)\n".utf8)
        _ = text.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
        abort()
    }
    return 0
}
#endif
