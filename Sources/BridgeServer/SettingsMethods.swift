import JSON
import JSONRPC
import Storage

/// `settings/get`, `settings/set`, `settings/remove`: the synced settings (see `SettingsStore`
/// for what is guaranteed, `SettingsService` for `settings/didChange`).
///
/// Not offered to agents as tools: settings are the user's preferences for the front ends, and an
/// agent has no reason to change them behind the user's back.
enum SettingsMethods {
    static func register(_ methods: inout [Method]) {
        let service = SettingsService()
        methods.append(Method("settings/get", schedule: { _ in .claims([.read("settings", "")]) }) { ctx in
            let keys = try keyList(try ctx.paramsObject(), "keys")
            let snap = try service.serve(ctx, shown: keys) { try $0.snapshot() }
            return ["values": snap.json(keys: keys), "updatedAt": snap.updatedAt.map(JSON.string) ?? .null]
        })
        methods.append(Method("settings/set", schedule: { _ in .claims([.write("settings", "")]) }) { ctx in
            let p = try ctx.paramsObject()
            guard let values = try p.object("values") else {
                throw RPCError.invalidParams(field: "values", expected: "an object", got: p["values"]?.typeName ?? "nothing")
            }
            var pairs: [(String, JSON)] = []
            for (key, value) in values.object.members {
                if value.isNull {
                    throw RPCError.invalidParams(field: values.field(key),
                                                 expected: "a JSON value other than null (settings/remove removes keys)", got: "null")
                }
                pairs.append((key, value))
            }
            let snap = try service.serve(ctx, shown: nil) { try $0.set(pairs) }
            return ["values": snap.json()]
        })
        methods.append(Method("settings/remove", schedule: { _ in .claims([.write("settings", "")]) }) { ctx in
            let p = try ctx.paramsObject()
            guard let keys = try keyList(p, "keys") else {
                throw RPCError.invalidParams(field: "keys", expected: "an array of strings", got: "nothing")
            }
            let snap = try service.serve(ctx, shown: nil) { try $0.remove(keys) }
            return ["values": snap.json()]
        })
    }

    /// An optional array of strings.
    static func keyList(_ p: Params, _ name: String) throws(RPCError) -> [String]? {
        guard let v = p[name] else { return nil }
        guard case .array(let items) = v else { throw .invalidParams(field: name, expected: "an array of strings", got: v.typeName) }
        return try items.enumerated().map { i, item throws(RPCError) in
            guard let s = item.stringValue else {
                throw .invalidParams(field: "\(name).\(i)", expected: "a string", got: item.typeName)
            }
            return s
        }
    }
}
