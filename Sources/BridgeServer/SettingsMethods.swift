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
    static let reaches: Set<Capability> = [.settings]
    struct Params: MethodParams {
        var keys: [String]?
        init(_ p: ParamReader) throws { keys = try SettingsMethods.keyList(p, "keys") }
    }
    static func schedule(_ p: Params) -> Schedule { .claims([.read("settings", "")]) }
    static func handle(_ p: Params, _ call: Call) throws -> Result {
        let snap = try call.services.settings.serve(call, shown: p.keys) { try $0.snapshot() }
        return Result(values: SettingsValues(snap.json(keys: p.keys)), updatedAt: snap.updatedAt)
    }

    struct Result: ObjectResult {
        var values: SettingsValues
        var updatedAt: String?
        static let fields: [ResultField<Self>] = [.field("values", \.values), .nullable("updatedAt", \.updatedAt)]
    }
}

enum SetSettings: MethodDeclaration {
    static let method = "settings/set"
    static let reaches: Set<Capability> = [.settings]
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
    static func handle(_ p: Params, _ call: Call) throws -> SettingsValues.Result {
        SettingsValues.Result(values: SettingsValues(try call.services.settings.serve(call, shown: nil) { try $0.set(p.pairs) }.json()))
    }
}

enum RemoveSettings: MethodDeclaration {
    static let method = "settings/remove"
    static let reaches: Set<Capability> = [.settings]
    struct Params: MethodParams {
        var keys: [String]
        init(_ p: ParamReader) throws {
            keys = try SettingsMethods.keyList(p, "keys", required: true) ?? []
        }
    }
    static func schedule(_ p: Params) -> Schedule { .claims([.write("settings", "")]) }
    static func handle(_ p: Params, _ call: Call) throws -> SettingsValues.Result {
        SettingsValues.Result(values: SettingsValues(try call.services.settings.serve(call, shown: nil) { try $0.remove(p.keys) }.json()))
    }
}

/// The live settings values as an object (keys sorted; each value as the user stored it).
struct SettingsValues: ResultValue {
    var object: JSON
    init(_ object: JSON) { self.object = object }
    var json: JSON { object }
    static var jsonType: String? { "object" }

    /// `settings/set`'s and `settings/remove`'s result: the values after the change.
    struct Result: ObjectResult {
        var values: SettingsValues
        static let fields: [ResultField<Self>] = [.field("values", \.values)]
    }
}
