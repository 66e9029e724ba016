#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import JSON
import JSONRPC

/// `initialize`, `initialized`, `shutdown`, `exit`, `ping`, cancellation and tracing.
///
/// Only what never touches the file system runs on the reading thread (`inline`, `prepare`):
/// `initialize` opens storage (a cloud root may be a hung mount) on the pool, as a barrier.
enum LifecycleMethods {
    static func register(requests: inout [Method], notifications: inout [Method]) {
        requests.append(Method("initialize", schedule: { _ in .barrier }, prepare: { ctx in
            try server(ctx).beginInitialize(ctx)
        }) { ctx in
            try server(ctx).initialize(ctx)
        })
        // Waits for the earlier requests at most the exit grace, then answers anyway (a request
        // stuck in a system call must not keep the client from exiting), naming what still runs.
        requests.append(Method("shutdown", schedule: { _ in .unordered }) { ctx in
            let stuck = ctx.serving.drain(before: ctx)
            if !stuck.isEmpty {
                ctx.logger.warning("shutdown: answering with \(stuck.count) earlier request(s) still in flight: \(stuck.map(\.description).joined(separator: "; "))")
            } else {
                try? server(ctx).agents.releaseAll()  // nothing writes any more: other devices may go on
            }
            return .null
        })
        requests.append(Method("ping", inline: true, schedule: { _ in .unordered }) { _ in .object(JSONObject()) })

        notifications.append(Method("initialized", inline: true) { _ in .null })
        notifications.append(Method("exit", inline: true, schedule: { _ in .unordered }) { ctx in
            let clean = try server(ctx).lifecycle.current == .shutDown
            ctx.serving.stop(exitCode: clean ? 0 : 1)
            return .null
        })
        notifications.append(Method("$/cancelRequest", inline: true, schedule: { _ in .unordered }) { ctx in
            let p = try ctx.paramsObject()
            if let raw = p["id"], let id = RequestID(raw) { ctx.serving.cancel(id: id) }
            return .null
        })
        notifications.append(Method("window/workDoneProgress/cancel", inline: true, schedule: { _ in .unordered }) { ctx in
            let p = try ctx.paramsObject()
            if let token = p["token"] { ctx.serving.cancel(progressToken: token) }
            return .null
        })
        notifications.append(Method("$/setTrace", inline: true, schedule: { _ in .unordered }) { ctx in
            let p = try ctx.paramsObject()
            let values = ["off", "messages", "verbose"]
            guard let v = try p.choice("value", values), let t = ClientLogSink.Trace(rawValue: v) else {
                throw RPCError.invalidParams(field: "value", expected: "one of \"off\", \"messages\", \"verbose\"", got: "nothing")
            }
            try server(ctx).logSink.setTrace(t)
            ctx.serving.setTrace(Connection.Trace(t))
            return .null
        })
    }

    /// The server behind a handler's connection.
    static func server(_ ctx: RequestContext) throws(RPCError) -> BridgeServer {
        guard let s = ctx.serving.router as? BridgeServer else { throw .internalError("no server behind this connection") }
        return s
    }
}

extension BridgeServer {
    /// On the reading thread: decides which protocol the connection speaks, so the messages
    /// that follow `initialize` are routed and scheduled by its rules.
    func beginInitialize(_ ctx: RequestContext) throws {
        let p = try ctx.paramsObject()
        let mcp = configuration.forceMCP || (try? p.string("protocolVersion")) != nil
        lifecycle.beginInitializing(mcp: mcp)
        if mcp { ctx.serving.useMCPConventions() }
    }

    func initialize(_ ctx: RequestContext) throws -> JSON {
        do {
            let result = try initializeSession(ctx)
            lifecycle.endInitializing(succeeded: true)
            return result
        } catch {
            lifecycle.endInitializing(succeeded: false)
            if !configuration.forceMCP { ctx.serving.useMCPConventions(false) }
            throw error
        }
    }

    private func initializeSession(_ ctx: RequestContext) throws -> JSON {
        let p = try ctx.paramsObject()
        if lifecycle.isMCP {
            attach(ctx.serving)
            return try MCPMethods.initialize(self, ctx, p)
        }
        var parent: Int32?
        if let v = p["processId"] {
            guard let pid = v.intValue, pid > 0, pid <= Int64(Int32.max) else {
                throw RPCError.invalidParams(field: "processId", expected: "a positive integer or null", got: v.typeName)
            }
            parent = Int32(pid)
        }
        let trace = try p.choice("trace", ["off", "messages", "verbose"]).flatMap(ClientLogSink.Trace.init) ?? .off
        if let info = try p.object("clientInfo") {
            let name = try info.string("name") ?? "unknown"
            let version = try info.string("version") ?? ""
            logger.info("client: \(name) \(version)")
        }
        let clientCapabilities = try p.object("capabilities")
        // LSP lets initializationOptions be any value: only an object can carry ours.
        let options: Params? = if case .object? = p["initializationOptions"] { try p.object("initializationOptions") } else { nil }
        let storage = try openStorage(initializationOptions: options)
        if try clientCapabilities?.object("workspace")?.bool("didChangeFiles") == true {
            try changes.watch(try storage.manager.active(), glob: nil, connection: ctx.serving)
        }

        logSink.setTrace(trace)
        ctx.serving.setTrace(Connection.Trace(trace))
        attach(ctx.serving)
        if let parent {
            let connection = ctx.serving
            ParentProcessWatcher.watch(pid: parent, everyMilliseconds: configuration.parentPollMilliseconds,
                                       logger: logger) {
                connection.output.flushNow()
                exit(1)
            }
        }
        let capabilities: JSON = [
            "methods": .array(methodNames.map(JSON.string)),
            "notifications": [
                "client": .array(clientNotificationNames.map(JSON.string)),
                "server": .array(Self.serverNotifications.map(JSON.string)),
            ],
            "framings": ["lsp", "ndjson"],
            "batches": true,
            "cancellation": true,
            "workDoneProgress": true,
            "maxMessageBytes": .int(Int64(configuration.maxMessageBytes)),
            "workspace": ["root": .string((try? storage.manager.active().rootPath) ?? storage.manager.localRoot),
                          "didChangeFiles": true],
        ]
        return [
            "serverInfo": ["name": .string(ServerInfo.name), "version": .string(ServerInfo.version)],
            "protocolVersion": .string(ServerInfo.protocolVersion),
            "capabilities": capabilities,
        ]
    }
}

extension Connection.Trace {
    init(_ t: ClientLogSink.Trace) {
        switch t {
        case .off: self = .off
        case .messages: self = .messages
        case .verbose: self = .verbose
        }
    }
}
