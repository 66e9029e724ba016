import Dispatch
import Synchronization
import SystemSupport
import Testing

@Suite("Threads")
struct ThreadTests {
    @Test("a detached thread runs its closure")
    func detach() throws {
        let ran = DispatchSemaphore(value: 0)
        try OSThread.detach { ran.signal() }
        try OSThread.start { ran.signal() }
        #expect(ran.wait(timeout: .now() + 5) == .success)
        #expect(ran.wait(timeout: .now() + 5) == .success)
    }

    @Test("Parallel.run runs every worker index once, on as many threads, and returns after all", arguments: [1, 2, 7])
    func parallel(count: Int) {
        let seen = Mutex<[Int]>([])
        let inside = Atomic<Int>(0)
        let most = Atomic<Int>(0)
        Parallel.run(count) { w in
            let n = inside.add(1, ordering: .sequentiallyConsistent).newValue
            _ = most.max(n, ordering: .sequentiallyConsistent)
            usleepBriefly()
            seen.withLock { $0.append(w) }
            inside.subtract(1, ordering: .sequentiallyConsistent)
        }
        #expect(seen.withLock { $0.sorted() } == Array(0..<count))
        #expect(inside.load(ordering: .sequentiallyConsistent) == 0)
        if count > 1 { #expect(most.load(ordering: .sequentiallyConsistent) > 1) }
    }
}

/// Long enough for the workers to overlap.
private func usleepBriefly() {
    let until = MonotonicClock.nanos() + 50_000_000
    while MonotonicClock.nanos() < until {}
}
