import FuzzTargets

/// libFuzzer driver for `PeerTarget` (built by Tests/Fuzz/run.sh), or a replayer of its inputs.
@main enum Main {
    static func main() { FuzzDriver.main(PeerTarget.self) }
}
