#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import JSON
import SystemSupport

extension Peer {
    /// Starts the reader thread on `input`: each message goes to `onIncoming` (or completes a
    /// request of ours); `onEnd` runs once, after the last, when the input ends or fails.
    public func start(input: Int32, onIncoming: @escaping @Sendable (Incoming) -> Void,
                      onEnd: @escaping @Sendable () -> Void) throws {
        try OSThread.detach { self.read(input, onIncoming: onIncoming, onEnd: onEnd) }
    }

    /// Reads on the calling thread until the input ends (see `start`).
    public func read(_ input: Int32, onIncoming: (Incoming) -> Void, onEnd: () -> Void) {
        var decoder = FrameDecoder(mode: .ndjson, maxMessageBytes: options.maxMessageBytes)
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        defer { onEnd() }
        while true {
            let n = buffer.withUnsafeMutableBytes { FileIO.read(input, into: $0) }
            guard n > 0 else { return }
            buffer.withUnsafeBytes { decoder.append(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
            while let event = decoder.next() {
                options.admit()
                switch event {
                case .message(let range):
                    let parsed: Result<JSON, JSONDecodeError> = decoder.withBody(range) { body in
                        do throws(JSONDecodeError) { return .success(try JSONCodec.decode(body)) } catch { return .failure(error) }
                    }
                    switch parsed {
                    case .success(let json): handle(json, onIncoming)
                    case .failure(let e): refuse(nil, .parse(e))
                    }
                case .fault(let fault):
                    tooLarge(fault, head: decoder.oversizeHead)
                }
            }
        }
    }

    /// Classifies and routes one parsed message (also the fuzz target's entry).
    func handle(_ json: JSON, _ onIncoming: (Incoming) -> Void) {
        let extras = Self.extras(json)
        switch IncomingMessage(json) {
        case .invalid(let id, let error):
            // An id in flight is not this message's to answer: the request that has it waits for its own.
            refuse(id.flatMap { i in state.withLock { $0.inFlight.contains(i) } ? nil : i }, error)
        case .request(let id, let method, let params):
            let fresh = state.withLock { $0.inFlight.insert(id).inserted }
            guard fresh else {
                logger.warning("\(options.label): request id \(id) is already in flight: refused")
                return send(Outgoing(json: OutgoingMessage.error(id: id, .duplicateRequestId(id))))
            }
            onIncoming(.request(id: id, method: method, params: params, extras: extras))
        case .notification(let method, let params):
            if method == options.cancelMethod {
                guard let id = params?["requestId"].flatMap(RequestID.init), state.withLock({ $0.inFlight.contains(id) }) else { return }
                return onIncoming(.cancelled(id: id, params: params))
            }
            onIncoming(.notification(method: method, params: params, extras: extras))
        case .response(let id, let result, let error):
            guard let id, let p = state.withLock({ $0.pending.removeValue(forKey: id) }) else {
                if id == nil, let error {
                    logger.warning("\(options.label) refused a message of ours: \(error["message"]?.stringValue ?? "\(error)")")
                } else {
                    logger.warning("\(options.label) answered a request we did not make (id \(id?.description ?? "null"))")
                }
                return
            }
            p.then(Reply(result: error == nil ? result ?? .null : nil, error: error, extras: extras))
        }
    }

    /// A line over the limit: when it is the answer to a request of ours, that request gets
    /// `MessageTooLarge`; otherwise the sender is told, with `id: null`.
    private func tooLarge(_ fault: FramingFault, head: [UInt8]) {
        if let id = OversizeHead.requestID(head), let p = state.withLock({ $0.pending.removeValue(forKey: id) }) {
            logger.warning("\(options.label): the answer to \(p.method) (id \(id)) was over \(options.maxMessageBytes) bytes: dropped")
            p.then(Reply(.responseTooLarge(method: p.method, limit: options.maxMessageBytes)))
            return
        }
        logger.warning("\(options.label): a message over \(options.maxMessageBytes) bytes: dropped")
        refuse(nil, .framing(fault))
    }

    private func refuse(_ id: RequestID?, _ error: RPCError) {
        send(Outgoing(json: OutgoingMessage.error(id: id, error)))
    }

    /// The top-level members of a message other than JSON-RPC's.
    static func extras(_ json: JSON) -> JSONObject {
        var o = JSONObject()
        for (k, v) in json.objectValue?.members ?? [] where !jsonrpcMembers.contains(k) { o[k] = v }
        return o
    }
}
