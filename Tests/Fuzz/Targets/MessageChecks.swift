import JSON
import JSONRPC

/// Invariants of JSON-RPC message classification, for any JSON value.
enum MessageChecks {
    /// - a request or notification has exactly the `method` and `params` of the object,
    ///   `params` being absent, an object or an array (`"params": null` reads as absent); a
    ///   notification has no `id`;
    /// - a response has no `method` and a `result` or an `error`;
    /// - an invalid message is answered with -32600, and that error reply (encoded, decoded,
    ///   classified again) is a response carrying the same id.
    static func check(_ json: JSON) throws(FuzzFailure) {
        let message = IncomingMessage(json)
        switch message {
        case .request(let id, let method, let params):
            try checkCall(json, method: method, params: params)
            try require(json["id"] == id.json, "the id is not the object's")
        case .notification(let method, let params):
            try checkCall(json, method: method, params: params)
            try require(json["id"] == nil, "a notification with an id")
        case .response(_, let result, let error):
            try require(json["method"] == nil, "a response with a method")
            try require(result != nil || error != nil, "a response with neither result nor error")
        case .invalid(let id, let error):
            try require(error.code == ErrorCode.invalidRequest, "an invalid message answered with \(error.code)")
            let reply = JSONCodec.encode(OutgoingMessage.error(id: id, error))
            let decoded: JSON
            do { decoded = try JSONCodec.decode(reply) } catch {
                throw FuzzFailure("the error reply does not decode: \(error)")
            }
            guard case .response(let replyID, nil, .some) = IncomingMessage(decoded) else {
                throw FuzzFailure("the error reply is not classified as an error response")
            }
            try require(replyID == id, "the error reply's id changed")
        }
    }

    private static func checkCall(_ json: JSON, method: String, params: JSON?) throws(FuzzFailure) {
        try require(json["method"] == .string(method), "method \(method) is not the object's")
        let given = json["params"]
        let expected: JSON? = given?.isNull == true ? JSON?.none : given
        try require(expected == params, "params are not the object's (null reading as absent)")
        if let params {
            try require(params.arrayValue != nil || params.objectValue != nil, "params of type \(params.typeName) accepted")
        }
    }
}
