import AgentSessions
import JSON
import JSONRPC
import Workspace

/// Session errors are domain failures (`-32803`) with their `data.code` and details
/// (`from`, `to`, `allowed` for `InvalidTransition`).
extension SessionError: DomainError {
    public var dataCode: String { code }
}

/// `session/*` and `agent/listTools`: durable agent sessions driven by the front end, which
/// makes the model calls; every acknowledged step is on disk before the answer.
enum SessionMethods {
    typealias Body = @Sendable (BridgeServer, SessionStore, Params, RequestContext) throws -> JSON

    /// A method on one session: later calls on the same session wait for earlier ones.
    static func method(_ name: String, access: Claim.Access = .write, _ body: @escaping Body) -> Method {
        Method(name, schedule: { params in
            let id = try Params(params).requiredString("id")
            return .claims([Claim("session", path: id, access: access)])
        }) { ctx in
            let server = try LifecycleMethods.server(ctx)
            let (store, _) = try server.agents.stores(for: try server.workspace())
            defer { server.agents.logWarnings(store) }
            return try body(server, store, try ctx.paramsObject(), ctx)
        }
    }

    /// Decodes a param with the core's own parser, reporting problems as `-32602` on that field.
    static func decode<T>(_ p: Params, _ key: String, _ parse: (JSON) throws(SessionError) -> T) throws -> T? {
        guard let v = p[key] else { return nil }
        do { return try parse(v) } catch {
            throw RPCError.invalidParams(field: p.field(key), expected: error.message, got: v.typeName)
        }
    }

    static func register(_ methods: inout [Method]) {
        methods.append(Method("agent/listTools") { _ in .array(ToolTable.all.map(\.json)) })
        methods.append(Method("session/create") { ctx in
            let server = try LifecycleMethods.server(ctx)
            let p = try ctx.paramsObject()
            let (store, _) = try server.agents.stores(for: try server.workspace())
            return try create(server, store, try createParams(p))
        })
        methods.append(Method("session/list") { ctx in
            let server = try LifecycleMethods.server(ctx)
            let p = try ctx.paramsObject()
            let (store, _) = try server.agents.stores(for: try server.workspace())
            let state = try p.choice("state", SessionState.allCases.map(\.rawValue)).flatMap(SessionState.init)
            let page = try store.list(state: state, limit: Int(try p.int("limit", in: 1...1000) ?? 50), cursor: try p.string("cursor"))
            let sessions = try p.bool("withBytesOnDisk") == true ? withBytesOnDisk(store, page.sessions) : page.sessions
            var o: JSONObject = ["sessions": .array(sessions.map(\.json))]
            if let next = page.nextCursor { o["nextCursor"] = .string(next) }
            return .object(o)
        })
        methods.append(method("session/get", access: .read) { _, store, p, _ in
            try store.get(id: try p.requiredString("id"), withBytesOnDisk: true).json
        })
        methods.append(method("session/messages", access: .read) { _, store, p, _ in
            let messages = try store.messages(id: try p.requiredString("id"), after: try p.string("after"),
                                              limit: Int(try p.int("limit", in: 1...10_000) ?? 100),
                                              includeCompacted: try p.bool("includeCompacted") ?? false)
            return ["messages": .array(messages.map(\.json))]
        })
        methods.append(method("session/delete") { _, store, p, _ in
            let id = try p.requiredString("id")
            try store.delete(id: id)
            return ["id": .string(id), "deleted": true]
        })
        methods.append(method("session/transition") { _, store, p, _ in
            guard let to = try p.choice("to", SessionState.allCases.map(\.rawValue)).flatMap(SessionState.init) else {
                throw RPCError.invalidParams(field: "to", expected: "a session state", got: "nothing")
            }
            return try store.transition(id: try p.requiredString("id"), to: to, error: p["error"]).session.json
        })
        methods.append(method("session/appendMessages") { _, store, p, _ in
            guard let raw = p["messages"]?.arrayValue else {
                throw RPCError.invalidParams(field: "messages", expected: "an array of messages", got: p["messages"]?.typeName ?? "nothing")
            }
            var inputs: [MessageInput] = []
            for (i, m) in raw.enumerated() {
                do throws(SessionError) { inputs.append(try MessageInput(json: m)) } catch {
                    throw RPCError.invalidParams(field: "messages[\(i)]", expected: error.message, got: m.typeName)
                }
            }
            return ["count": .int(Int64(try store.appendMessages(id: try p.requiredString("id"), messages: inputs)))]
        })
        methods.append(method("session/recordUsage") { _, store, p, _ in
            usageReport(try store.recordUsage(id: try p.requiredString("id"),
                                              inputTokens: Int(try p.requiredInt("inputTokens", in: 0...Int64(Int32.max))),
                                              outputTokens: Int(try p.requiredInt("outputTokens", in: 0...Int64(Int32.max))),
                                              model: try p.string("model")))
        })
        methods.append(method("session/checkpoint") { _, store, p, _ in
            var pending: [ToolCallRecord]?
            if let raw = p["pendingToolCalls"]?.arrayValue {
                pending = []
                for (i, r) in raw.enumerated() {
                    do throws(SessionError) { pending!.append(try ToolCallRecord(json: r)) } catch {
                        throw RPCError.invalidParams(field: "pendingToolCalls[\(i)]", expected: error.message, got: r.typeName)
                    }
                }
            }
            let c = try store.checkpoint(id: try p.requiredString("id"), pendingToolCalls: pending, partialResults: p["partialResults"])
            return ["checkpointId": .string(c.checkpointId), "at": .string(c.at)]
        })
        methods.append(method("session/resume") { _, store, p, _ in try store.resume(id: try p.requiredString("id")).json })
        methods.append(Method("session/callTool", schedule: callToolSchedule) { ctx in try callTool(ctx) })
        registerLineage(&methods)
        registerRetention(&methods)
        registerPortable(&methods)
        registerApprovals(&methods)
    }

    /// A tool call holds its session, and the paths it names (read or write per the tool).
    static let callToolSchedule: Method.Scheduler = { params in
        let p = try Params(params)
        let id = try p.requiredString("id")
        return .claims(toolClaims(session: id, name: try p.requiredString("name"), arguments: p["arguments"]))
    }

    private static let claimedArguments = ["path", "from", "to"]

    /// The claims of a call of tool `name` in session `session`: the session (write), and each
    /// valid path among the `path`, `from` and `to` arguments, read for a read-only tool (and for
    /// `copy_file`'s `from`), write otherwise; the whole workspace when it names none.
    static func toolClaims(session: String, name: String, arguments: JSON?) -> [Claim] {
        var claims = [Claim("session", path: session, access: .write)]
        let access: Claim.Access = ToolTable.byName[name]?.readOnly == true ? .read : .write
        if case .object(let args)? = arguments {
            for key in claimedArguments {
                if case .string(let raw)? = args[key], let path = plainPath(raw) ?? (try? WorkspacePath(raw))?.string {
                    claims.append(Claim("file", path: path, access: key == "from" && name == "copy_file" ? .read : access))
                }
            }
        }
        if claims.count == 1 { claims.append(Claim("file", path: "", access: access)) }
        return claims
    }

    /// `raw` when it is a path `WorkspacePath` keeps exactly as written — names of letters,
    /// digits, `_ - .` and spaces (and non-ASCII), none empty, `.` or `..`, none over 255 bytes —
    /// so the claim needs no parse; nil for anything else, which `WorkspacePath` then decides.
    static func plainPath(_ raw: String) -> String? {
        var raw = raw
        let plain = raw.withUTF8 { u -> Bool in
            guard !u.isEmpty, u.count <= 1024 else { return false }
            var nameStart = 0
            var dotsOnly = true
            for i in 0...u.count {
                let c = i < u.count ? u[i] : UInt8(ascii: "/")
                if c == UInt8(ascii: "/") {
                    let length = i - nameStart
                    if length == 0 || length > 255 || (dotsOnly && length <= 2) { return false }
                    nameStart = i + 1
                    dotsOnly = true
                    continue
                }
                switch c {
                case UInt8(ascii: "."): continue
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                     UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: " "), 0x80...0xFF:
                    dotsOnly = false
                default: return false
                }
            }
            return true
        }
        return plain ? raw : nil
    }

    /// Journals the intent, runs the tool once, journals the result. A `toolCallId` seen before
    /// returns its recorded result without running the tool again. The approval policy and the
    /// device policy are asked first (`runGated`).
    static func callTool(_ ctx: RequestContext) throws -> JSON {
        let server = try LifecycleMethods.server(ctx)
        let p = try ctx.paramsObject()
        let call = ToolCall(session: try p.requiredString("id"), toolCallId: try p.requiredString("toolCallId"),
                            name: try p.requiredString("name"), arguments: p["arguments"] ?? .object(JSONObject()),
                            userConfirmed: try p.bool("userConfirmed") ?? false)
        guard ToolTable.byName[call.name] != nil else {
            throw RPCError.invalidParams(field: "name", expected: "a tool from agent/listTools", got: "\"\(call.name)\"")
        }
        let (store, _) = try server.agents.stores(for: try server.workspace())
        defer { server.agents.logWarnings(store) }
        return try runGated(server, store, call, ctx)
    }
}
