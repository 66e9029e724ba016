/// Ending input from outside the read loop: what a termination signal does.
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
}
