import AgentSessions
import JSON
import JSONRPC

/// `host/*` (the app's lifecycle and the device's conditions) and `queue/*` (work that waits for
/// the network).
enum HostMethods {
    static let all: [any MethodDeclaration.Type] = [
        DidEnterBackground.self, WillEnterForeground.self, SetConditions.self, GetConditions.self,
        Enqueue.self, ListQueue.self, CompleteQueueItem.self, FailQueueItem.self,
    ]
}

/// Backgrounding touches every session: it waits for calls in flight on any of them.
enum DidEnterBackground: MethodDeclaration {
    static let method = "host/didEnterBackground"
    static let result = ResultShape.object(["sessions"])
    static func schedule(_ p: NoParams) -> Schedule { .claims([.write("session", "")]) }
    static func handle(_ p: NoParams, _ call: Call) throws -> JSON {
        let (store, _) = try call.services.stores()
        let sessions = store.backgroundAll()
        call.services.agents.logWarnings(store)
        return ["sessions": .array(sessions.map(\.json))]
    }
}

enum WillEnterForeground: MethodDeclaration {
    static let method = "host/willEnterForeground"
    static let result = ResultShape.object(["sessions"])
    static func schedule(_ p: NoParams) -> Schedule { .claims([.read("session", "")]) }
    static func handle(_ p: NoParams, _ call: Call) throws -> JSON {
        let (store, _) = try call.services.stores()
        return ["sessions": .array(store.backgrounded().map { s in ["session": s.session.json, "checkpoint": s.checkpoint ?? .null] })]
    }
}

/// The whole params are the device's conditions, parsed by `DeviceConditions` (the core's own
/// parser): its fields are listed here for the schema agreement check.
enum SetConditions: MethodDeclaration {
    static let method = "host/setConditions"
    static let result = ResultShape.object(["policy"])
    /// Writes the device conditions (a second report waits for the first, so each compares
    /// with the one before it) and reads the queue (`queue/ready` when coming back online).
    static func schedule(_ p: Params) -> Schedule { .claims([.write("conditions", ""), .read("queue", "")]) }
    struct Params: MethodParams {
        var conditions: DeviceConditions
        init(_ p: ParamReader) throws {
            if p.isDescribing {
                // The fields `DeviceConditions(json:)` reads.
                _ = try p.requiredChoice("network", DeviceConditions.Network.allCases.map(\.rawValue), expected: "")
                for key in ["isExpensive", "isConstrained", "isCharging", "isLowPowerMode"] { _ = try p.bool(key) }
                _ = p.value("batteryLevel")
                _ = try p.choice("thermalState", DeviceConditions.ThermalState.allCases.map(\.rawValue))
                conditions = DeviceConditions(network: .wifi)
                return
            }
            do throws(SessionError) { conditions = try DeviceConditions(json: p.source ?? .object(JSONObject())) } catch {
                throw RPCError.invalidParams(field: "", expected: error.message, got: p.source?.typeName ?? "nothing")
            }
        }
    }
    static func handle(_ p: Params, _ call: Call) throws -> JSON {
        let agents = call.services.agents
        let queue = try? call.services.stores().1
        return ["policy": agents.setConditions(p.conditions, queue: queue).json]
    }
}

enum GetConditions: MethodDeclaration {
    static let method = "host/getConditions"
    static let result = ResultShape.object(["conditions", "policy"])
    static func schedule(_ p: NoParams) -> Schedule { .unordered }
    static func handle(_ p: NoParams, _ call: Call) throws -> JSON {
        let agents = call.services.agents
        let c = agents.currentConditions
        return ["conditions": c.json, "policy": agents.policy(for: c).json]
    }
}

/// A queue method: queue calls are serialised among themselves (enqueue order is the queue's order).
protocol QueueMethod: MethodDeclaration {
    static func handle(_ p: Params, _ queue: OfflineQueue) throws -> JSON
}

extension QueueMethod {
    static var result: ResultShape { .object(QueueItem.fields) }
    static func schedule(_ p: Params) -> Schedule { .claims([.write("queue", "")]) }
    static func handle(_ p: Params, _ call: Call) throws -> JSON { try handle(p, try call.services.stores().1) }
}

extension QueueItem {
    static let fields = ["id", "kind", "payload", "idempotencyKey", "requiresNetwork", "status", "attempts", "result", "error",
                         "createdAt", "updatedAt"]
}

enum Enqueue: QueueMethod {
    static let method = "queue/enqueue"
    struct Params: MethodParams {
        var kind: String
        var payload: JSON
        var idempotencyKey: String
        var requiresNetwork: Bool
        init(_ p: ParamReader) throws {
            kind = try p.requiredString("kind")
            payload = p.value("payload") ?? .null
            idempotencyKey = try p.requiredString("idempotencyKey")
            requiresNetwork = try p.bool("requiresNetwork") ?? true
        }
    }
    static func handle(_ p: Params, _ q: OfflineQueue) throws -> JSON {
        try q.enqueue(kind: p.kind, payload: p.payload, idempotencyKey: p.idempotencyKey, requiresNetwork: p.requiresNetwork).json
    }
}

enum ListQueue: QueueMethod {
    static let method = "queue/list"
    static var result: ResultShape { .object(["items"]) }
    static func handle(_ p: NoParams, _ q: OfflineQueue) throws -> JSON { ["items": .array(try q.list().map(\.json))] }
}

enum CompleteQueueItem: QueueMethod {
    static let method = "queue/complete"
    struct Params: MethodParams {
        var id: String
        var result: JSON?
        init(_ p: ParamReader) throws {
            id = try p.requiredString("id")
            result = p.value("result")
        }
    }
    static func handle(_ p: Params, _ q: OfflineQueue) throws -> JSON { try q.complete(id: p.id, result: p.result).json }
}

enum FailQueueItem: QueueMethod {
    static let method = "queue/fail"
    struct Params: MethodParams {
        var id: String
        var error: JSON
        var retry: Bool
        init(_ p: ParamReader) throws {
            id = try p.requiredString("id")
            error = try p.required("error")
            retry = try p.bool("retry") ?? false
        }
    }
    static func handle(_ p: Params, _ q: OfflineQueue) throws -> JSON { try q.fail(id: p.id, error: p.error, retry: p.retry).json }
}
