import Dispatch
import JSON
import JSONRPC
import Synchronization
import Testing

/// `record` answers at once and leaves its bookkeeping for after the answer, held until the test
/// releases it; `check` (same claim) reports whether that bookkeeping had run when it started.
private final class Bookkeeping: Sendable {
    let release = DispatchSemaphore(value: 0)
    private let doneFlag = Atomic<Bool>(false)
    var done: Bool { doneFlag.load(ordering: .acquiring) }

    var methods: [Method] {
        let claim: Method.Scheduler = { _ in .claims([.write("book", "one")]) }
        return [
            Method("record", schedule: claim) { ctx in
                ctx.afterAnswer {
                    self.release.wait()
                    self.doneFlag.store(true, ordering: .releasing)
                }
                return "answered"
            },
            Method("check", schedule: claim) { _ in .bool(self.done) },
            Method("detached") { ctx in
                let work = ctx.detached(progress: { _ in })
                let ran = Atomic<Bool>(false)
                work.afterAnswer { ran.store(true, ordering: .relaxed) }
                return .bool(ran.load(ordering: .relaxed))
            },
        ]
    }
}

@Suite("Connection: work after the answer")
struct AfterAnswerTests {
    @Test("the answer is written before the work left for after it; a conflicting request starts only once that work is done")
    func answerFirstThenWorkThenNext() throws {
        let b = Bookkeeping()
        let h = PipeHarness(b.methods)
        h.request(1, "record")
        // Answered while its after-answer work is still held.
        #expect(h.responses(1).first?["result"] == "answered")
        #expect(!b.done)
        h.request(2, "check")
        b.release.signal()
        #expect(h.responses(1).first?["result"] == true)
        #expect(h.finish() == 0)
    }

    @Test("end of input waits for the work left for after an answer")
    func endOfInputWaits() throws {
        let b = Bookkeeping()
        let h = PipeHarness(b.methods)
        h.request(1, "record")
        #expect(h.responses(1).first?["result"] == "answered")
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(100)) { b.release.signal() }
        #expect(h.finish() == 0)
        #expect(b.done)
    }

    @Test("on a detached context (work continuing after its request was answered) the work runs at once")
    func detachedRunsAtOnce() throws {
        let h = PipeHarness(Bookkeeping().methods)
        h.request(1, "detached")
        #expect(h.responses(1).first?["result"] == true)
        #expect(h.finish() == 0)
    }
}
