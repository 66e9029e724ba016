import JSON
import Synchronization

/// Gathers the answers to one JSON-RPC batch and sends them as one array once the last
/// expected answer arrives (JSON-RPC 2.0: the order inside the array is not significant).
final class BatchCollector: Sendable {
    private struct State { var remaining: Int; var answers: [JSON] }
    private let state: Mutex<State>
    private let output: OutputChannel

    init(expected: Int, output: OutputChannel) {
        precondition(expected > 0)
        self.state = Mutex(State(remaining: expected, answers: []))
        self.output = output
    }

    func add(_ answer: JSON) {
        let complete: [JSON]? = state.withLock { s in
            s.answers.append(answer)
            s.remaining -= 1
            return s.remaining == 0 ? s.answers : nil
        }
        if let complete { output.send(.array(complete)) }
    }
}
