import Dispatch

/// How a connection ends: end of input, `exit` and a termination signal (`endInput`) keep one
/// promise. Every request received before the end is run and answered, waited for at most
/// `exitGrace`; after the grace the ones still running are named on stderr and abandoned, and
/// no handler starts any more, so nothing (a save, `initialize` laying out a new workspace) is
/// begun only to be cut off by the process ending.
extension Connection {
    /// Ends input now, as if the client had closed it: nothing read from then on is admitted or
    /// answered (a message being read at that instant is dropped whole: its request is neither
    /// run nor answered), and `run()` goes on as at end of input: it waits at most `exitGrace`
    /// for the requests already admitted and writes their answers, then returns 0, or names the
    /// ones still running on stderr (as "`reason`: …") and returns 1. `run()` does not wait for
    /// the reading thread, which may be blocked in a read or running a stuck handler.
    ///
    /// Returns how many requests were in flight, or nil (doing nothing) when input had already
    /// been ended this way.
    @discardableResult
    public func endInput(reason: String) -> Int? {
        let inFlight = state.withLock { s -> Int? in
            guard s.endedBy == nil else { return nil }
            s.endedBy = reason
            return s.jobs.count
        }
        guard let inFlight else { return nil }
        stopping.store(true, ordering: .releasing)
        loopEnded.signal()
        return inFlight
    }

    /// After reading has ended (for whichever reason): waits at most `exitGrace` for every
    /// request admitted (not at all when `shutdown` has already waited that long and given up
    /// on some), then returns the status `run()` ends with: `exit`'s when it came, else 0 when
    /// everything finished and 1 when something was abandoned.
    func finishInFlight() -> Int32 {
        rescue.stop()
        clientRequests.closeAll()
        endDeferred()
        let (exitCode, endedBy) = state.withLock { ($0.exitCode, $0.endedBy) }
        let moment = exitCode != nil ? "exit" : endedBy ?? "end of input"
        logger.debug("\(moment): finishing requests in flight")
        let wait = drainGaveUp.load(ordering: .acquiring) ? .zero : options.exitGrace
        if inFlight.wait(timeout: .now() + Self.dispatchInterval(wait)) == .success { return exitCode ?? 0 }
        givenUp.store(true, ordering: .releasing)
        let status = exitCode ?? 1
        reportStuck(at: moment, after: options.exitGrace, exitStatus: status)
        return status
    }
}
