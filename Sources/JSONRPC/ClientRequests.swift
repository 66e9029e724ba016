import JSON
import Synchronization

/// The requests this side sent to the client (JSON-RPC is symmetric: a server may ask the client, e.g. for its roots),
/// waiting for their responses.
///
/// Guarantees:
/// - Ids are strings `"wb-1"`, `"wb-2"`, … unique for the connection's life, so they can never
///   be mistaken for an answer to anything else.
/// - Each completion runs exactly once: with the client's result or error, or with
///   `ConnectionClosed` when the input ends first. It runs on the reader thread and must be
///   quick (record the answer, hand real work to the worker pool).
/// - A response whose id is unknown (never sent, or already answered) is ignored.
final class ClientRequests: Sendable {
    typealias Completion = @Sendable (Result<JSON, RPCError>) -> Void

    private struct State {
        var next: Int64 = 1
        var waiting: [RequestID: Completion] = [:]
        var closed = false
    }

    private let state = Mutex(State())

    /// Registers a completion and returns the id to send, or nil when the connection has
    /// already ended (the completion has then been called with `ConnectionClosed`).
    func register(_ completion: @escaping Completion) -> RequestID? {
        let id: RequestID? = state.withLock { s in
            if s.closed { return nil }
            let id = RequestID.string("wb-\(s.next)")
            s.next += 1
            s.waiting[id] = completion
            return id
        }
        if id == nil { completion(.failure(Self.closedError)) }
        return id
    }

    /// Delivers a response; false when nothing waited for this id.
    func complete(id: RequestID?, result: JSON?, error: JSON?) -> Bool {
        guard let id, let completion = state.withLock({ $0.waiting.removeValue(forKey: id) }) else { return false }
        if let error {
            let code = error["code"]?.intValue.map { Int($0) } ?? ErrorCode.internalError
            let message = error["message"]?.stringValue ?? "the client answered with an error"
            var data = JSONObject()
            if case .object(let d)? = error["data"] { data = d }
            let dataCode = data["code"]?.stringValue ?? "ClientError"
            completion(.failure(RPCError(code: code, message: message, dataCode: dataCode, data: data)))
        } else {
            completion(.success(result ?? .null))
        }
        return true
    }

    /// Fails every waiting request with `ConnectionClosed`; later registrations fail at once.
    func closeAll() {
        let waiting = state.withLock { s in
            s.closed = true
            defer { s.waiting.removeAll() }
            return Array(s.waiting.values)
        }
        for completion in waiting { completion(.failure(Self.closedError)) }
    }

    static let closedError = RPCError(code: ErrorCode.internalError, message: "the connection ended before the client answered",
                                      dataCode: "ConnectionClosed")
}
