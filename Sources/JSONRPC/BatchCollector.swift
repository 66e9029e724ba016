import JSON
import Synchronization

/// Gathers the answers to one batch and sends them as one array once the last
/// expected answer arrives (JSON-RPC 2.0: the order inside the array is not significant).
///
/// Bounded: each answer is kept as its encoded text only (not as a value), and the array never
/// grows past `budget` bytes with answers that can be given up: an answer of a member that only
/// reads (`add(_:readOnlyID:)`) that would push it past `budget` is replaced by a `-32600`
/// `BatchTooLarge` error for that member (`data.reason: "answerBytes"`), which the client
/// re-sends on its own. Answers of members that may write, and errors, are always kept:
/// what a write did is never dropped.
final class BatchCollector: Sendable {
    private struct State { var remaining: Int; var answers: [[UInt8]]; var bytes: Int }
    private let state: Mutex<State>
    private let output: OutputChannel
    private let budget: Int

    init(expected: Int, output: OutputChannel, budget: Int) {
        precondition(expected > 0)
        self.state = Mutex(State(remaining: expected, answers: [], bytes: 2))
        self.output = output
        self.budget = budget
    }

    /// Adds one answer; `readOnlyID` is the id of a member that only reads (its answer may be
    /// replaced when it does not fit), nil for any other answer.
    func add(_ answer: JSON, readOnlyID: RequestID? = nil) {
        var text = JSONCodec.encode(answer)
        let fits = state.withLock { s in
            guard readOnlyID == nil || s.bytes + text.count + 1 <= budget else { return false }
            s.bytes += text.count + 1
            return true
        }
        if !fits, let id = readOnlyID {
            text = JSONCodec.encode(OutgoingMessage.error(id: id, .batchAnswerTooLarge(limit: budget)))
            state.withLock { $0.bytes += text.count + 1 }
        }
        let complete: [[UInt8]]? = state.withLock { s in
            s.answers.append(text)
            s.remaining -= 1
            guard s.remaining == 0 else { return nil }
            defer { s.answers = [] }
            return s.answers
        }
        if let complete { output.send(encoded: JSONCodec.encodeArray(ofEncoded: complete)) }
    }
}
