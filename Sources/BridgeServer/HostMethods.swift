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
    static let reaches: Set<Capability> = [.device]
    static func schedule(_ p: NoParams) -> Schedule { .claims([.write("session", "")]) }
    static func handle(_ p: NoParams, _ call: Call) throws -> Result {
        let (store, _) = try call.services.stores()
        let sessions = store.backgroundAll()
        call.services.agents.logWarnings(store)
        return Result(sessions: sessions.map(SessionObject.init))
    }

    struct Result: ObjectResult {
        var sessions: [SessionObject]
        static let fields: [ResultField<Self>] = [.field("sessions", \.sessions)]
    }
}

enum WillEnterForeground: MethodDeclaration {
    static let method = "host/willEnterForeground"
    static let reaches: Set<Capability> = [.device]
    static func schedule(_ p: NoParams) -> Schedule { .claims([.read("session", "")]) }
    static func handle(_ p: NoParams, _ call: Call) throws -> Result {
        let (store, _) = try call.services.stores()
        return Result(sessions: store.backgrounded().map { Backgrounded(session: SessionObject(session: $0.session), checkpoint: $0.checkpoint) })
    }

    struct Result: ObjectResult {
        var sessions: [Backgrounded]
        static let fields: [ResultField<Self>] = [.field("sessions", \.sessions)]
    }

    /// A session the app left in the background, and its last checkpoint.
    struct Backgrounded: ObjectResult {
        var session: SessionObject
        var checkpoint: BackgroundCheckpoint?
        static let fields: [ResultField<Self>] = [.field("session", \.session), .nullable("checkpoint", \.checkpoint)]
    }
}

/// The whole params are the device's conditions (`DeviceConditions`), read here; the shared
/// conditions file holds them in the same form and is read by the same decoder (`SharedConditions`).
enum SetConditions: MethodDeclaration {
    static let method = "host/setConditions"
    static let reaches: Set<Capability> = [.device]
    /// Writes the device conditions (a second report waits for the first, so each compares
    /// with the one before it) and reads the queue (`queue/ready` when coming back online).
    static func schedule(_ p: Params) -> Schedule { .claims([.write("conditions", ""), .read("queue", "")]) }
    struct Params: MethodParams {
        var conditions: DeviceConditions
        /// Every refusal is `-32602` with `field` "" and `expected` naming the bad member; the
        /// members are checked in this order: network, batteryLevel, thermalState, then the flags.
        init(_ p: ParamReader) throws {
            if p.isDescribing {
                _ = try p.requiredChoice("network", DeviceConditions.Network.allCases.map(\.rawValue), expected: "")
                for key in ["isExpensive", "isConstrained", "isCharging", "isLowPowerMode"] { _ = try p.bool(key) }
                _ = p.value("batteryLevel")
                _ = try p.choice("thermalState", DeviceConditions.ThermalState.allCases.map(\.rawValue))
                conditions = DeviceConditions(network: .wifi)
                return
            }
            func refuse(_ expected: String) -> RPCError {
                .invalidParams(field: "", expected: expected, got: p.source?.typeName ?? "nothing")
            }
            guard let network = p["network"]?.stringValue.flatMap(DeviceConditions.Network.init(rawValue:)) else {
                throw refuse("network must be one of offline, wifi, cellular, wired")
            }
            func flag(_ key: String) throws -> Bool {
                guard let v = p[key] else { return false }
                guard let b = v.boolValue else { throw refuse("\(key) must be a boolean") }
                return b
            }
            var battery: Double?
            if let b = p["batteryLevel"] {
                guard let d = b.doubleValue, d >= 0, d <= 1 else { throw refuse("batteryLevel must be a number from 0 to 1") }
                battery = d
            }
            var thermal: DeviceConditions.ThermalState?
            if let t = p["thermalState"] {
                guard let v = t.stringValue.flatMap(DeviceConditions.ThermalState.init(rawValue:)) else {
                    throw refuse("thermalState must be one of nominal, fair, serious, critical")
                }
                thermal = v
            }
            conditions = DeviceConditions(network: network, isExpensive: try flag("isExpensive"), isConstrained: try flag("isConstrained"),
                                          batteryLevel: battery, isCharging: try flag("isCharging"),
                                          isLowPowerMode: try flag("isLowPowerMode"), thermalState: thermal)
        }
    }
    static func handle(_ p: Params, _ call: Call) throws -> Result {
        let agents = call.services.agents
        let queue = try? call.services.stores().1
        return Result(policy: agents.setConditions(p.conditions, queue: queue))
    }

    struct Result: ObjectResult {
        var policy: Policy
        static let fields: [ResultField<Self>] = [.field("policy", \.policy)]
    }
}

enum GetConditions: MethodDeclaration {
    static let method = "host/getConditions"
    static let reaches: Set<Capability> = [.device]
    static func schedule(_ p: NoParams) -> Schedule { .unordered }
    static func handle(_ p: NoParams, _ call: Call) throws -> Result {
        let agents = call.services.agents
        let c = agents.currentConditions
        return Result(conditions: c, policy: agents.policy(for: c))
    }

    struct Result: ObjectResult {
        var conditions: DeviceConditions
        var policy: Policy
        static let fields: [ResultField<Self>] = [.field("conditions", \.conditions), .field("policy", \.policy)]
    }
}

/// A queue method: queue calls are serialised among themselves (enqueue order is the queue's order).
protocol QueueMethod: MethodDeclaration {
    static func handle(_ p: Params, _ queue: OfflineQueue) throws -> Result
}

extension QueueMethod {
    static func schedule(_ p: Params) -> Schedule { .claims([.write("queue", "")]) }
    static func handle(_ p: Params, _ call: Call) throws -> Result { try handle(p, try call.services.stores().1) }
}

enum Enqueue: QueueMethod {
    static let method = "queue/enqueue"
    static let reaches: Set<Capability> = [.workspace]
    typealias Result = QueueItem
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
    static func handle(_ p: Params, _ q: OfflineQueue) throws -> QueueItem {
        try q.enqueue(kind: p.kind, payload: p.payload, idempotencyKey: p.idempotencyKey, requiresNetwork: p.requiresNetwork)
    }
}

enum ListQueue: QueueMethod {
    static let method = "queue/list"
    static let reaches: Set<Capability> = [.workspace]
    static func handle(_ p: NoParams, _ q: OfflineQueue) throws -> Result { Result(items: try q.list()) }

    struct Result: ObjectResult {
        var items: [QueueItem]
        static let fields: [ResultField<Self>] = [.field("items", \.items)]
    }
}

enum CompleteQueueItem: QueueMethod {
    static let method = "queue/complete"
    static let reaches: Set<Capability> = [.workspace]
    typealias Result = QueueItem
    struct Params: MethodParams {
        var id: String
        var result: JSON?
        init(_ p: ParamReader) throws {
            id = try p.requiredString("id")
            result = p.value("result")
        }
    }
    static func handle(_ p: Params, _ q: OfflineQueue) throws -> QueueItem { try q.complete(id: p.id, result: p.result) }
}

enum FailQueueItem: QueueMethod {
    static let method = "queue/fail"
    static let reaches: Set<Capability> = [.workspace]
    typealias Result = QueueItem
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
    static func handle(_ p: Params, _ q: OfflineQueue) throws -> QueueItem { try q.fail(id: p.id, error: p.error, retry: p.retry) }
}
