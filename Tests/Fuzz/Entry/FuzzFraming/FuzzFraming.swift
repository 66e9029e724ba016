import FuzzTargets

/// libFuzzer driver for `FramingTarget` (built by Tests/Fuzz/run.sh), or a replayer of its inputs.
@main enum Main {
    static func main() { FuzzDriver.main(FramingTarget.self) }
}
