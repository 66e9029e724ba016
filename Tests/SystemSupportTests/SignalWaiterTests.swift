#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SystemSupport
import Testing

/// Blocking and waiting are process-wide and tested on the real binary (Tests/e2e/test_signals.py);
/// here only what decides which signals are taken.
@Suite("SignalWaiter")
struct SignalWaiterTests {
    @Test("a signal set to be ignored is seen as ignored, one at its default is not")
    func ignored() {
        let before = signal(SIGUSR2, SIG_IGN)
        defer { signal(SIGUSR2, before) }
        #expect(SignalWaiter.isIgnored(SIGUSR2))
        signal(SIGUSR2, SIG_DFL)
        #expect(!SignalWaiter.isIgnored(SIGUSR2))
    }

    @Test("signals are named conventionally")
    func names() {
        #expect(SignalWaiter.name(of: SIGTERM) == "SIGTERM")
        #expect(SignalWaiter.name(of: SIGINT) == "SIGINT")
        #expect(SignalWaiter.name(of: SIGHUP) == "SIGHUP")
    }
}
