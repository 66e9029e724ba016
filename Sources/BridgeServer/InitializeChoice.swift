import JSON
import JSONRPC

/// `initialize` across faces: the seam through which a connection decides which face it speaks.
/// On the reading thread, before anything else is decoded, each face (in the order composed)
/// is asked whether the params are its (`Face.claimsInitialize`); the first that claims them
/// answers, with its conventions in force from the admission on; when none does, the LSP-style
/// `Initialize` decodes and answers them. Params that are not an object are `-32602` either way.
enum InitializeChoice {
    private struct Claimed: Sendable {
        let face: any Face
        let params: JSON?
    }

    /// The connection's `initialize`: `lsp` (the core's own) unless a face of `faces` claims it.
    static func method(lsp: Method, faces: [any Face], services: Services) -> Method {
        Method(lsp.name, inline: lsp.inline, plan: { json in
            try services.grant.admit(Initialize.reaches, method: Initialize.method)
            _ = try ParamReader(json)
            guard let face = faces.first(where: { $0.claimsInitialize(json) }) else { return try lsp.plan(json) }
            return Plan(schedule: .barrier, decoded: Claimed(face: face, params: json))
        }, prepare: { ctx in
            guard let claimed = ctx.decoded as? Claimed else { try lsp.prepare?(ctx); return }
            services.lifecycle.beginInitializing(face: type(of: claimed.face).id)
            ctx.serving.use(claimed.face.conventions)
        }, handler: { ctx in
            guard let claimed = ctx.decoded as? Claimed else { return try lsp.handler(ctx) }
            let call = Call(services: services, request: ctx)
            let connection = try call.connection()
            do {
                let result = try claimed.face.initialize(claimed.params, call)
                services.lifecycle.endInitializing(succeeded: true)
                return result
            } catch {
                services.lifecycle.endInitializing(succeeded: false)
                claimed.face.initializeFailed(connection)
                throw error
            }
        })
    }
}
