#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
@testable import BridgeServer
import JSON
import JSONRPC
import Testing

/// The Swift declarations and schema/openrpc.json agree: the same method names; for each method
/// the params its decoder reads (recorded by running the decoder on a describing `Params`, so
/// this cannot drift from decoding) are the schema's params, a param the decoder requires is
/// required by the schema, types and allowed values match; and the fields of a declaration's
/// `Result` type (the same description its answers are encoded from) are the schema result's
/// properties, with the types the schema admits. Any difference is reported, naming the method
/// and what differs.
@Suite("Schema agreement")
struct SchemaAgreementTests {
    static let schema: JSON = {
        let path = String(#filePath.split(separator: "/", omittingEmptySubsequences: false).dropLast(3).joined(separator: "/"))
            + "/schema/openrpc.json"
        guard let f = fopen(path, "rb") else { fatalError("cannot open \(path)") }
        defer { fclose(f) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = fread(&chunk, 1, chunk.count, f)
            if n == 0 { break }
            bytes += chunk[0..<n]
        }
        return try! JSONCodec.decode(bytes)
    }()

    /// Params read by the connection for every method, not by a method's decoder.
    static let connectionParams: Set<String> = ["workDoneToken"]

    static func resolve(_ s: JSON) -> JSON {
        guard let ref = s["$ref"]?.stringValue else { return s }
        let name = String(ref.split(separator: "/").last!)
        return resolve(schema["components"]!["schemas"]![name]!)
    }

    /// The JSON types a schema admits (nil: unknown, e.g. `oneOf`).
    static func types(_ s: JSON) -> Set<String>? {
        let r = resolve(s)
        if let t = r["type"]?.stringValue { return [t] }
        if let ts = r["type"]?.arrayValue { return Set(ts.compactMap(\.stringValue)) }
        if let e = r["enum"]?.arrayValue, e.allSatisfy({ $0.stringValue != nil }) { return ["string"] }
        return nil
    }

    /// The properties of an object schema by name, with their schemas (through `$ref`, `allOf`
    /// and `oneOf`).
    static func propertySchemas(_ s: JSON) -> [String: JSON] {
        let r = resolve(s)
        var out: [String: JSON] = [:]
        for (k, v) in r["properties"]?.objectValue?.members ?? [] { out[k] = v }
        for part in (r["allOf"]?.arrayValue ?? []) + (r["oneOf"]?.arrayValue ?? []) {
            out.merge(propertySchemas(part)) { first, _ in first }
        }
        return out
    }

    static func problems(_ d: any MethodDeclaration.Type, _ m: JSON) -> [String] {
        var out: [String] = []
        let name = d.method
        let fields: [ParamField]
        do { fields = try d.paramFields() } catch { return ["\(name): describing its params failed: \(error)"] }
        var schemaParams: [String: JSON] = [:]
        for p in m["params"]?.arrayValue ?? [] where !connectionParams.contains(p["name"]!.stringValue!) {
            schemaParams[p["name"]!.stringValue!] = p
        }
        let read = Set(fields.map(\.name)).union(d.unreadParams)
        for missing in Set(schemaParams.keys).subtracting(read).sorted() { out.append("\(name): the decoder does not read param '\(missing)'") }
        for extra in read.subtracting(schemaParams.keys).sorted() { out.append("\(name): the decoder reads '\(extra)', which the schema does not list") }
        for f in fields {
            guard let p = schemaParams[f.name] else { continue }
            if f.required && p["required"]?.boolValue != true { out.append("\(name): '\(f.name)' is required by the decoder, optional in the schema") }
            if let t = f.type, let admitted = types(p["schema"]!), !admitted.contains(t) {
                out.append("\(name): '\(f.name)' is decoded as \(t), the schema says \(admitted.sorted())")
            }
            if let allowed = f.allowed, let e = resolve(p["schema"]!)["enum"]?.arrayValue {
                let values = Set(e.compactMap(\.stringValue))
                if values != Set(allowed) { out.append("\(name): '\(f.name)' allows \(allowed.sorted()), the schema \(values.sorted())") }
            }
        }
        let result = m["result"]?["schema"]
        switch d.resultShape {
        case .object(let fields):
            let schemaFields = result.map(propertySchemas) ?? [:]
            let names = Set(fields.map(\.name))
            if names != Set(schemaFields.keys) {
                out.append("\(name): result fields \(names.sorted()) but the schema's are \(schemaFields.keys.sorted())")
            }
            for f in fields {
                guard let s = schemaFields[f.name], let admitted = types(s) else { continue }
                if let t = f.type, !admitted.contains(t), !(t == "integer" && admitted.contains("number")) {
                    out.append("\(name): result field '\(f.name)' is encoded as \(t), the schema says \(admitted.sorted())")
                }
                if f.nullable && !admitted.contains("null") {
                    out.append("\(name): result field '\(f.name)' may be null, the schema says \(admitted.sorted())")
                }
            }
        case .null:
            if let result, types(result) != ["null"] { out.append("\(name): answers null, the schema says otherwise") }
        case .array:
            if types(result ?? .null) != ["array"] { out.append("\(name): answers an array, the schema says otherwise") }
        case .any: break
        case .untyped:
            out.append("\(name): answers a hand-built JSON; declare its Result type (see docs/architecture.md, Adding a method)")
        }
        let capabilities = Set((m["x-capabilities"]?.arrayValue ?? []).compactMap(\.stringValue))
        if m["x-capabilities"] == nil { out.append("\(name): the schema states no x-capabilities") }
        let reaches = Set(d.reaches.map(\.rawValue))
        if reaches != capabilities {
            out.append("\(name): reaches \(reaches.sorted()), the schema's x-capabilities say \(capabilities.sorted())")
        }
        return out
    }

    static func declared() -> [any MethodDeclaration.Type] {
        MethodTables.requests(ServerConfiguration(enableDebugMethods: true)) + MethodTables.notifications
    }

    @Test("every declared method is in the schema, and every client-callable schema method is declared")
    func names() {
        let schemaNames = Set(Self.schema["methods"]!.arrayValue!.map { $0["name"]!.stringValue! })
        let declared = Set(Self.declared().map { $0.method })
        #expect(declared.subtracting(schemaNames).isEmpty, "declared but not in the schema: \(declared.subtracting(schemaNames).sorted())")
        let serverSent = Set(MethodTables.serverNotifications)
        let undeclared = schemaNames.subtracting(declared).subtracting(serverSent)
        #expect(undeclared.isEmpty, "in the schema but not declared: \(undeclared.sorted())")
    }

    @Test("params, required fields, types, allowed values and result fields agree with the schema")
    func fields() {
        let methods = Dictionary(uniqueKeysWithValues: Self.schema["methods"]!.arrayValue!.map { ($0["name"]!.stringValue!, $0) })
        var all: [String] = []
        for d in Self.declared() {
            guard let m = methods[d.method] else { continue }
            all += Self.problems(d, m)
        }
        #expect(all.isEmpty, "\(all.count) differences:\n\(all.joined(separator: "\n"))")
    }
}

/// Declarations the agreement check must fault: a result whose fields and types differ from the
/// schema's, and one that answers hand-built JSON.
enum MistypedFileUri: MethodDeclaration {
    static let method = "getFileUri"
    static let reaches: Set<Capability> = [.workspace, .hostPaths]
    static func schedule(_ p: PathParams) -> Schedule { .claims([]) }
    static func handle(_ p: PathParams, _ call: Call) throws -> Result { Result(uri: 0) }
    struct Result: ObjectResult {
        var uri: Int64
        static let fields: [ResultField<Self>] = [.field("uri", \.uri), .field("extra", \.uri)]
    }
}

enum UntypedFileUri: MethodDeclaration {
    static let method = "getFileUri"
    static let reaches: Set<Capability> = [.workspace, .hostPaths]
    static func schedule(_ p: PathParams) -> Schedule { .claims([]) }
    static func handle(_ p: PathParams, _ call: Call) throws -> JSON { ["uri": "file:///"] }
}

extension SchemaAgreementTests {
    @Test("the check reports a result field the schema lacks, a field of another type, and an untyped result")
    func checkFaultsMistypedResults() throws {
        let m = try #require(Self.schema["methods"]?.arrayValue?.first { $0["name"]?.stringValue == "getFileUri" })
        let mistyped = Self.problems(MistypedFileUri.self, m)
        #expect(mistyped.contains { $0.contains("result fields [\"extra\", \"uri\"]") }, "\(mistyped)")
        #expect(mistyped.contains { $0.contains("'uri' is encoded as integer") }, "\(mistyped)")
        #expect(Self.problems(GetFileUri.self, m).isEmpty)
        #expect(Self.problems(UntypedFileUri.self, m).contains { $0.contains("declare its Result type") })
    }
}
