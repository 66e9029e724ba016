import JSON
import JSONRPC
import Storage

/// `settings/get`, `settings/set`, `settings/remove`: the synced settings (see `SettingsStore`
/// for what is guaranteed, `SettingsService` for `settings/didChange`).
///
/// Not offered to agents as tools: settings are the user's preferences for the front ends, and an
/// agent has no reason to change them behind the user's back.
enum SettingsMethods {
    static let all: [any MethodDeclaration.Type] = [GetSettings.self, SetSettings.self, RemoveSettings.self]

    /// An array of strings (nil when absent and not `required`).
    static func keyList(_ p: ParamReader, _ name: String, required: Bool = false) throws(RPCError) -> [String]? {
        let expected = "an array of strings"
        guard let items = required ? try p.requiredArray(name, expected: expected) : try p.array(name, expected: expected) else {
            return nil
        }
        return try items.enumerated().map { i, item throws(RPCError) in
            guard let s = item.stringValue else {
                throw .invalidParams(field: "\(name).\(i)", expected: "a string", got: item.typeName)
            }
            return s
        }
    }
}

enum GetSettings: MethodDeclaration {
    static let method = "settings/get"
    static let result = ResultShape.object(["values", "updatedAt"])
    struct Params: MethodParams {
        var keys: [String]?
        init(_ p: ParamReader) throws { keys = try SettingsMethods.keyList(p, "keys") }
    }
    static func schedule(_ p: Params) -> Schedule { .claims([.read("settings", "")]) }
    static func handle(_ p: Params, _ call: Call) throws -> JSON {
        let snap = try call.services.settings.serve(call, shown: p.keys) { try $0.snapshot() }
        return ["values": snap.json(keys: p.keys), "updatedAt": snap.updatedAt.map(JSON.string) ?? .null]
    }
}

enum SetSettings: MethodDeclaration {
    static let method = "settings/set"
    static let result = ResultShape.object(["values"])
    struct Params: MethodParams {
        var pairs: [(String, JSON)] = []
        init(_ p: ParamReader) throws {
            let values = try p.requiredObject("values")
            for (key, value) in values.object.members {
                if value.isNull {
                    throw RPCError.invalidParams(field: values.field(key),
                                                 expected: "a JSON value other than null (settings/remove removes keys)", got: "null")
                }
                pairs.append((key, value))
            }
        }
    }
    static func schedule(_ p: Params) -> Schedule { .claims([.write("settings", "")]) }
    static func handle(_ p: Params, _ call: Call) throws -> JSON {
        let snap = try call.services.settings.serve(call, shown: nil) { try $0.set(p.pairs) }
        return ["values": snap.json()]
    }
}

enum RemoveSettings: MethodDeclaration {
    static let method = "settings/remove"
    static let result = ResultShape.object(["values"])
    struct Params: MethodParams {
        var keys: [String]
        init(_ p: ParamReader) throws {
            keys = try SettingsMethods.keyList(p, "keys", required: true) ?? []
        }
    }
    static func schedule(_ p: Params) -> Schedule { .claims([.write("settings", "")]) }
    static func handle(_ p: Params, _ call: Call) throws -> JSON {
        let snap = try call.services.settings.serve(call, shown: nil) { try $0.remove(p.keys) }
        return ["values": snap.json()]
    }
}
