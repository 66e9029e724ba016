import JSON
import SystemSupport

/// A JSON-RPC error object, ready for the wire.
///
/// Every error the server sends carries `data.code`, a string from the schema's enumeration,
/// so clients switch on a stable name rather than parsing messages.
public struct RPCError: Error, Sendable, Equatable, CustomStringConvertible {
    public var code: Int
    public var message: String
    public var data: JSONObject

    public init(code: Int, message: String, dataCode: String, data: JSONObject = JSONObject()) {
        self.code = code
        self.message = message
        var d = JSONObject()
        d["code"] = .string(dataCode)
        for (k, v) in data.members where k != "code" { d[k] = v }
        self.data = d
    }

    /// The typed name in `data.code`.
    public var dataCode: String { data["code"]?.stringValue ?? "" }

    public var json: JSON {
        var o = JSONObject()
        o["code"] = .int(Int64(code))
        o["message"] = .string(message)
        o["data"] = .object(data)
        return .object(o)
    }

    public var description: String { "\(code) \(dataCode): \(message)" }
}

/// The JSON-RPC 2.0 and LSP error codes the server uses.
public enum ErrorCode {
    public static let parseError = -32700
    public static let invalidRequest = -32600
    public static let methodNotFound = -32601
    public static let invalidParams = -32602
    public static let internalError = -32603
    public static let serverNotInitialized = -32002
    public static let requestCancelled = -32800
    /// LSP's RequestFailed: a valid request that failed in the domain; `data.code` says why.
    public static let requestFailed = -32803
}

extension RPCError {
    public static func parseError(_ reason: String, kind: String = "invalidSyntax", line: Int = 0, column: Int = 0,
                                  position: Int = 0) -> RPCError {
        RPCError(code: ErrorCode.parseError, message: "Parse error: \(reason)", dataCode: "ParseError",
                 data: ["reason": .string(reason), "kind": .string(kind), "line": .int(Int64(line)),
                        "column": .int(Int64(column)), "position": .int(Int64(position))])
    }

    public static func invalidRequest(_ why: String, dataCode: String = "InvalidRequest") -> RPCError {
        RPCError(code: ErrorCode.invalidRequest, message: "Invalid request: \(why)", dataCode: dataCode)
    }

    public static func methodNotFound(_ method: String) -> RPCError {
        RPCError(code: ErrorCode.methodNotFound, message: "Method not found: \(method)", dataCode: "MethodNotFound",
                 data: ["method": .string(method)])
    }

    /// Bad params: `field` is the dotted path of the offending field ("" for params itself).
    public static func invalidParams(field: String, expected: String, got: String? = nil) -> RPCError {
        var data: JSONObject = ["field": .string(field), "expected": .string(expected)]
        if let got { data["got"] = .string(got) }
        let subject = field.isEmpty ? "params" : "'\(field)'"
        let tail = got.map { ", got \($0)" } ?? ""
        return RPCError(code: ErrorCode.invalidParams, message: "Invalid params: \(subject) must be \(expected)\(tail)",
                        dataCode: "InvalidParams", data: data)
    }

    public static func internalError(_ why: String) -> RPCError {
        RPCError(code: ErrorCode.internalError, message: "Internal error: \(why)", dataCode: "InternalError")
    }

    public static let serverNotInitialized = RPCError(
        code: ErrorCode.serverNotInitialized, message: "Server not initialized: send 'initialize' first",
        dataCode: "ServerNotInitialized")

    public static let cancelled = RPCError(
        code: ErrorCode.requestCancelled, message: "Request cancelled", dataCode: "RequestCancelled")

    /// A domain failure of a valid request (`-32803`), e.g. `NotFound` with `data.path`.
    public static func failed(_ dataCode: String, _ message: String, data: JSONObject = JSONObject()) -> RPCError {
        RPCError(code: ErrorCode.requestFailed, message: message, dataCode: dataCode, data: data)
    }

    /// No thread for the request now (`-32803` `ServerBusy`): `data.reason` is `stuckHandlers`
    /// (every thread is taken and `data.limit` cancelled handlers are still stuck in system
    /// calls) or `threadLimit` (the system refused a new thread: `data.errno`). Nothing was done;
    /// the same request may be sent again later.
    static func busy(_ refusal: WorkerPool.Refusal) -> RPCError {
        switch refusal {
        case .busy(let abandoned, let limit):
            return RPCError(code: ErrorCode.requestFailed,
                            message: "Server busy: every thread is taken and \(abandoned) cancelled requests are still stuck "
                                + "in system calls (at most \(limit) are set aside); try again later",
                            dataCode: "ServerBusy", data: ["reason": "stuckHandlers", "limit": .int(Int64(limit))])
        case .noThread(let e):
            return RPCError(code: ErrorCode.requestFailed, message: "Server busy: \(e); try again later",
                            dataCode: "ServerBusy", data: ["reason": "threadLimit", "errno": .int(Int64(e.errno))])
        }
    }

    /// A batch with more than `limit` members, refused whole (`-32600` `BatchTooLarge`,
    /// `data.reason: "members"`, answered with `id: null`): none of it ran.
    static func batchTooLarge(members: Int, limit: Int) -> RPCError {
        RPCError(code: ErrorCode.invalidRequest,
                 message: "Batch too large: \(members) members, the limit is \(limit); send fewer per batch, or pipeline single requests",
                 dataCode: "BatchTooLarge",
                 data: ["reason": "members", "limit": .int(Int64(limit)), "size": .int(Int64(members))])
    }

    /// A batch whose text is more than `limit` bytes, refused whole before it is parsed
    /// (`-32600` `BatchTooLarge`, `data.reason: "bytes"`, answered with `id: null`).
    static func batchTooLarge(bytes: Int, limit: Int) -> RPCError {
        RPCError(code: ErrorCode.invalidRequest,
                 message: "Batch too large: \(bytes) bytes, the limit is \(limit); send fewer per batch, or pipeline single requests",
                 dataCode: "BatchTooLarge",
                 data: ["reason": "bytes", "limit": .int(Int64(limit)), "size": .int(Int64(bytes))])
    }

    /// The answer to one member of a batch that only reads, given instead of its result when
    /// the batch's answer would grow past `limit` bytes (`-32600` `BatchTooLarge`,
    /// `data.reason: "answerBytes"`): send that request again on its own.
    static func batchAnswerTooLarge(limit: Int) -> RPCError {
        RPCError(code: ErrorCode.invalidRequest,
                 message: "Batch answer too large: this member's result would take the batch's answer past \(limit) bytes; send it on its own",
                 dataCode: "BatchTooLarge", data: ["reason": "answerBytes", "limit": .int(Int64(limit))])
    }

    /// A request whose id is that of one still in flight (`-32600` `DuplicateRequestId`): refused,
    /// never handled twice.
    static func duplicateRequestId(_ id: RequestID) -> RPCError {
        .invalidRequest("request id \(id) is already in flight", dataCode: "DuplicateRequestId")
    }

    /// A message body that is not JSON (`-32700` `ParseError`, where and why).
    static func parse(_ e: JSONDecodeError) -> RPCError {
        .parseError(e.reason, kind: e.kind, line: e.line, column: e.column, position: e.position)
    }

    /// The answer to a request of ours that was dropped unread for its size (`-32600`
    /// `MessageTooLarge`, `data.limit`; `data.reason: "response"`): the request gets this instead.
    static func responseTooLarge(method: String, limit: Int) -> RPCError {
        RPCError(code: ErrorCode.invalidRequest,
                 message: "Message too large: the answer to \(method) was more than \(limit) bytes (--max-message-bytes) and was dropped",
                 dataCode: "MessageTooLarge", data: ["limit": .int(Int64(limit)), "reason": "response", "method": .string(method)])
    }

    static func framing(_ fault: FramingFault) -> RPCError {
        switch fault {
        case .tooLarge(let size, let limit):
            var data: JSONObject = ["limit": .int(Int64(limit))]
            if let size { data["size"] = .int(Int64(size)) }
            let what = size.map { "\($0) bytes" } ?? "more than \(limit) bytes"
            return RPCError(code: ErrorCode.invalidRequest,
                            message: "Message too large: \(what), the limit is \(limit) bytes (--max-message-bytes)",
                            dataCode: "MessageTooLarge", data: data)
        case .invalidHeader(let why):
            return RPCError(code: ErrorCode.parseError, message: "Invalid header: \(why)", dataCode: "InvalidHeader")
        case .unsupportedCharset(let cs):
            return RPCError(code: ErrorCode.parseError,
                            message: "Unsupported charset '\(cs)': messages must be UTF-8", dataCode: "UnsupportedCharset",
                            data: ["charset": .string(cs)])
        }
    }
}

