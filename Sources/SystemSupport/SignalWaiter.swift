#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Takes termination signals on one ordinary thread instead of in a signal handler.
///
/// `block` blocks the signals in the calling thread, so in every thread it starts later; call it
/// first thing, before any thread exists, or a thread started earlier may still take a signal
/// with its default action (the process dies). `start` then waits for them with `sigwait` on a
/// thread of its own and calls `onSignal` there, once per signal: nothing ever runs in an
/// async-signal context, so `onSignal` may lock, allocate and log.
///
/// A signal the parent process set to be ignored (`nohup` ignores SIGHUP, a shell's background
/// job ignores SIGINT) is left alone and stays ignored: it is neither blocked nor waited for.
public final class SignalWaiter: Sendable {
    /// The signals this waiter blocked and waits for (those not ignored at start).
    public let signals: [Int32]

    private init(signals: [Int32]) { self.signals = signals }

    /// Blocks `candidates` (except the ones ignored at start) in the calling thread and returns
    /// the waiter for them. Call before any other thread is started.
    public static func block(_ candidates: [Int32]) -> SignalWaiter {
        let taken = candidates.filter { !isIgnored($0) }
        var set = signalSet(taken)
        pthread_sigmask(SIG_BLOCK, &set, nil)
        return SignalWaiter(signals: taken)
    }

    /// Waits for the signals on a new thread, calling `onSignal` with each signal's number;
    /// throws when the thread cannot be started (the signals then stay blocked: the caller
    /// must not go on as if they were taken).
    public func start(_ onSignal: @escaping @Sendable (Int32) -> Void) throws(OSThread.StartError) {
        let signals = self.signals
        guard !signals.isEmpty else { return }
        try OSThread.detach {
            var set = Self.signalSet(signals)
            while true {
                var number: Int32 = 0
                if sigwait(&set, &number) == 0 { onSignal(number) }
            }
        }
    }

    /// Whether `signal`'s disposition is "ignore" in this process.
    public static func isIgnored(_ signal: Int32) -> Bool {
        var current = sigaction()
        guard sigaction(signal, nil, &current) == 0 else { return false }
        #if canImport(Glibc)
        let handler = current.__sigaction_handler.sa_handler
        #else
        let handler = current.__sigaction_u.__sa_handler
        #endif
        guard let handler else { return false }  // SIG_DFL
        return unsafeBitCast(handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
    }

    /// The conventional name of a signal ("SIGTERM"), or "signal N".
    public static func name(of signal: Int32) -> String {
        switch signal {
        case SIGTERM: "SIGTERM"
        case SIGINT: "SIGINT"
        case SIGHUP: "SIGHUP"
        case SIGQUIT: "SIGQUIT"
        case SIGPIPE: "SIGPIPE"
        default: "signal \(signal)"
        }
    }

    private static func signalSet(_ signals: [Int32]) -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        for s in signals { sigaddset(&set, s) }
        return set
    }
}
