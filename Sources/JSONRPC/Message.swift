import JSON

/// One decoded JSON-RPC message (a batch member or a whole message).
public enum IncomingMessage: Sendable, Equatable {
    case request(id: RequestID, method: String, params: JSON?)
    case notification(method: String, params: JSON?)
    /// A response to a request the server sent.
    case response(id: RequestID?, result: JSON?, error: JSON?)
    /// Not a valid message; answered with this error and the id when it could be read.
    case invalid(id: RequestID?, error: RPCError)

    /// Classifies a parsed JSON value as JSON-RPC 2.0 says.
    public init(_ json: JSON) {
        guard case .object(let o) = json else {
            self = .invalid(id: nil, error: .invalidRequest("a message must be a JSON object, got \(json.typeName)"))
            return
        }
        let rawID = o["id"]
        let id = rawID.flatMap(RequestID.init)
        guard o["jsonrpc"] == .string("2.0") else {
            self = .invalid(id: id, error: .invalidRequest("\"jsonrpc\" must be \"2.0\""))
            return
        }
        if let rawID, id == nil, !(rawID.isNull && o["method"] == nil) {
            self = .invalid(id: nil, error: .invalidRequest("\"id\" must be an integer or a string, got \(rawID.typeName)"))
            return
        }
        if let m = o["method"] {
            guard case .string(let method) = m else {
                self = .invalid(id: id, error: .invalidRequest("\"method\" must be a string, got \(m.typeName)"))
                return
            }
            // `"params": null` is what several LSP client libraries send for "no params": it
            // reads as absent, for requests and notifications alike.
            var params = o["params"]
            if params?.isNull == true { params = JSON?.none }
            if let params {
                switch params {
                case .object, .array: break
                default:
                    self = .invalid(id: id, error: .invalidRequest("\"params\" must be an object or an array, got \(params.typeName)"))
                    return
                }
            }
            self = id.map { .request(id: $0, method: method, params: params) } ?? .notification(method: method, params: params)
            return
        }
        if o["result"] != nil || o["error"] != nil {
            self = .response(id: id, result: o["result"], error: o["error"])
            return
        }
        self = .invalid(id: id, error: .invalidRequest("a message needs \"method\" (request or notification) or \"result\"/\"error\" (response)"))
    }
}

/// Builders for outgoing messages.
public enum OutgoingMessage {
    public static func response(id: RequestID?, result: JSON) -> JSON {
        var o = JSONObject()
        o.reserveCapacity(3)
        o["jsonrpc"] = "2.0"
        o["id"] = id?.json ?? .null
        o["result"] = result
        return .object(o)
    }

    public static func error(id: RequestID?, _ error: RPCError) -> JSON {
        var o = JSONObject()
        o["jsonrpc"] = "2.0"
        o["id"] = id?.json ?? .null
        o["error"] = error.json
        return .object(o)
    }

    public static func notification(_ method: String, _ params: JSON?) -> JSON {
        var o = JSONObject()
        o["jsonrpc"] = "2.0"
        o["method"] = .string(method)
        if let params { o["params"] = params }
        return .object(o)
    }
}
