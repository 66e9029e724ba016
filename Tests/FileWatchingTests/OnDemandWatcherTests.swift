#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
@testable import FileWatching
import Synchronization
import SystemSupport
import Testing

/// What an `OnDemandWatcher` delivered: each event's changes and the subscribers it went to.
final class Deliveries: Sendable {
    struct Delivery: Sendable { let changes: [FileChange]; let overflow: Bool; let to: [String: String] }
    private let state = Mutex([Delivery]())

    func record(_ event: OnDemandWatcher<String, String>.Event, _ to: [String: String]) {
        let d: Delivery
        switch event {
        case .changes(let c): d = Delivery(changes: c, overflow: false, to: to)
        case .overflow: d = Delivery(changes: [], overflow: true, to: to)
        }
        state.withLock { $0.append(d) }
    }

    var all: [Delivery] { state.withLock { $0 } }
    func clear() { state.withLock { $0.removeAll() } }

    /// Waits up to `milliseconds` for a delivery that reports `change`.
    func waitFor(_ change: FileChange, milliseconds: Int = 10_000) -> Delivery? {
        let deadline = MonotonicClock.nanos() + UInt64(milliseconds) * 1_000_000
        repeat {
            if let d = all.first(where: { $0.changes.contains(change) }) { return d }
            usleep(5_000)
        } while MonotonicClock.nanos() < deadline
        return nil
    }
}

func onDemand(_ deliveries: Deliveries) -> OnDemandWatcher<String, String> {
    OnDemandWatcher<String, String>(ignore: serverIgnore, deliver: { deliveries.record($0, $1) })
}

/// Runs `a` and `b` on two threads released at the same instant.
func race(_ a: @escaping @Sendable () -> Void, _ b: @escaping @Sendable () -> Void) {
    let ready = Atomic<Int>(0)
    Parallel.run(2) { w in
        ready.add(1, ordering: .acquiringAndReleasing)
        while ready.load(ordering: .acquiring) < 2 {}
        if w == 0 { a() } else { b() }
    }
}

@Suite("OnDemandWatcher: one watcher for many subscribers, on a real directory", .serialized)
struct OnDemandWatcherTests {
    @Test("churn from four threads, then a change reaches exactly the subscribers left; after the last leaves nothing runs")
    func churnThenDeliverToCurrentOnly() throws {
        let dir = TempDir(); defer { dir.remove() }
        let got = Deliveries()
        let watch = onDemand(got)
        let errors = Atomic<Int>(0)
        Parallel.run(4) { w in
            for i in 0..<150 {
                let key = "\(w)-\(i)"
                do { try watch.add(key, "value \(key)", root: dir.path) } catch { errors.add(1, ordering: .relaxed) }
                if i % 3 != 0 { watch.remove(key) }               // two in three leave again at once
                if i >= 3, i % 3 == 0 { watch.remove("\(w)-\(i - 3)") } // the others leave later
            }
            if w % 2 == 0 {
                do { try watch.add("\(w)-keep", "kept by \(w)", root: dir.path) } catch { errors.add(1, ordering: .relaxed) }
            }
            watch.remove("\(w)-147")
        }
        #expect(errors.load(ordering: .relaxed) == 0)
        #expect(Set(watch.subscribers.keys) == ["0-keep", "2-keep"])
        #expect(watch.isRunning)

        writeFile(dir.at("after-churn.txt"), "x")
        let d = try #require(got.waitFor(created("after-churn.txt")), "\(got.all.map(\.changes))")
        #expect(d.to == ["0-keep": "kept by 0", "2-keep": "kept by 2"])
        usleep(200_000)
        #expect(got.all.allSatisfy { Set($0.to.keys) == ["0-keep", "2-keep"] }, "\(got.all.map(\.to))")
        #expect(got.all.filter { $0.changes.contains(created("after-churn.txt")) }.count == 1,
                "one watcher, one delivery per change")

        watch.remove("0-keep")
        #expect(watch.isRunning)
        got.clear()
        writeFile(dir.at("one-left.txt"), "x")
        #expect(got.waitFor(created("one-left.txt"))?.to == ["2-keep": "kept by 2"])

        watch.remove("2-keep")
        #expect(!watch.isRunning)
        #expect(watch.subscribers.isEmpty)
        got.clear()
        writeFile(dir.at("nobody.txt"), "x")
        usleep(300_000)
        #expect(got.all.isEmpty, "\(got.all.map(\.changes))")
    }

    @Test("a subscriber arriving while the last one leaves is always watched; a watcher never outlives its subscribers")
    func startRacingStop() throws {
        let dir = TempDir(); defer { dir.remove() }
        let got = Deliveries()
        let watch = onDemand(got)
        try watch.add("old", "old", root: dir.path)
        for i in 0..<200 {
            let newcomer = "new-\(i)"
            race({ watch.remove(i == 0 ? "old" : "new-\(i - 1)") },
                 { try? watch.add(newcomer, newcomer, root: dir.path) })
            #expect(Set(watch.subscribers.keys) == [newcomer])
            #expect(watch.isRunning, "iteration \(i): a subscriber with no watcher")
            if i % 50 == 49 {
                got.clear()
                writeFile(dir.at("probe-\(i).txt"), "x")
                #expect(got.waitFor(created("probe-\(i).txt"))?.to == [newcomer: newcomer], "iteration \(i)")
            }
        }
        // The same key added and removed at once: whichever wins, running iff subscribed.
        watch.remove("new-199")
        for i in 0..<200 {
            race({ try? watch.add("flip", "flip", root: dir.path) }, { watch.remove("flip") })
            #expect(watch.isRunning == !watch.subscribers.isEmpty, "iteration \(i)")
            watch.remove("flip")
            #expect(!watch.isRunning)
        }
    }

    @Test("a watcher that cannot start throws, keeps no subscriber, and the next add can start one")
    func failedStart() throws {
        let dir = TempDir(); defer { dir.remove() }
        let got = Deliveries()
        let watch = onDemand(got)
        #expect(throws: FileWatcherError.self) { try watch.add("a", "a", root: dir.at("missing")) }
        #expect(watch.subscribers.isEmpty)
        #expect(!watch.isRunning)
        try watch.add("b", "b", root: dir.path)
        #expect(watch.isRunning)
        writeFile(dir.at("f.txt"), "x")
        #expect(got.waitFor(created("f.txt"))?.to == ["b": "b"])
        watch.remove("b")
        #expect(!watch.isRunning)
    }

    @Test("adding under a present key replaces its value without a second watcher")
    func replaceValue() throws {
        let dir = TempDir(); defer { dir.remove() }
        let got = Deliveries()
        let watch = onDemand(got)
        try watch.add("client", "first filter", root: dir.path)
        try watch.add("client", "second filter", root: dir.path)
        writeFile(dir.at("f.txt"), "x")
        #expect(got.waitFor(created("f.txt"))?.to == ["client": "second filter"])
        usleep(200_000)
        #expect(got.all.count == 1)
        watch.remove("client")
        #expect(!watch.isRunning)
    }

    @Test("a subscriber may leave from inside a delivery without deadlock")
    func removeFromCallback() throws {
        let dir = TempDir(); defer { dir.remove() }
        let got = Deliveries()
        let box = Mutex<OnDemandWatcher<String, String>?>(nil)
        let watch = OnDemandWatcher<String, String>(ignore: serverIgnore, deliver: { event, to in
            got.record(event, to)
            box.withLock { $0 }?.remove("only")
        })
        box.withLock { $0 = watch }
        try watch.add("only", "only", root: dir.path)
        writeFile(dir.at("f.txt"), "x")
        #expect(got.waitFor(created("f.txt")) != nil)
        let deadline = MonotonicClock.nanos() + 2_000_000_000
        while watch.isRunning && MonotonicClock.nanos() < deadline { usleep(5_000) }
        #expect(!watch.isRunning)
        box.withLock { $0 = nil }
    }
}
