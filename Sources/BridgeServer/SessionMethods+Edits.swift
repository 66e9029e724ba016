import AgentSessions
import JSON
import JSONRPC

/// `session/deleteMessages`, `session/update`, `session/stats` (issue 25): what the framework
/// adapters of the Python client store through, besides appending and reading messages.

/// Deletes messages chosen by exactly one selector: `messageIds`, `where` or `last`.
enum DeleteMessages: SessionMethod {
    static let method = "session/deleteMessages"
    static let reaches: Set<Capability> = [.workspace]
    struct Params: SessionParams {
        var id: String
        var selection: MessageSelection
        init(_ p: ParamReader) throws {
            id = try p.requiredString("id")
            let ids = try p.array("messageIds", expected: "an array of message ids")
            let filter = try SessionMethods.decode(p, "where", MessageFilter.init(json:))
            let last = try p.int("last", in: 1...10_000)
            let given = [ids != nil, filter != nil, last != nil].filter { $0 }.count
            if p.isDescribing { selection = .last(1); return }
            guard given == 1 else {
                throw RPCError.invalidParams(field: p.field("messageIds"), expected: "exactly one of messageIds, where, last",
                                             got: given == 0 ? "none" : "\(given) of them")
            }
            if let ids {
                var list: [String] = []
                for (i, v) in ids.enumerated() {
                    guard let s = v.stringValue else {
                        throw RPCError.invalidParams(field: "\(p.field("messageIds"))[\(i)]", expected: "a message id", got: v.typeName)
                    }
                    list.append(s)
                }
                selection = .ids(list)
            } else if let filter {
                selection = .matching(filter)
            } else {
                selection = .last(Int(last ?? 1))
            }
        }
    }
    static func handle(_ p: Params, _ store: SessionStore) throws -> Result {
        Result(deleted: try store.deleteMessages(id: p.id, p.selection))
    }

    /// The ids deleted, in journal order.
    struct Result: ObjectResult {
        var deleted: [String]
        static let fields: [ResultField<Self>] = [.field("deleted", \.deleted)]
    }
}

/// Sets the title and merges metadata key by key (`null` removes a key).
enum UpdateSession: SessionMethod {
    static let method = "session/update"
    static let reaches: Set<Capability> = [.workspace]
    typealias Result = SessionObject
    struct Params: SessionParams {
        var id: String
        var title: String?
        var metadata: JSONObject?
        init(_ p: ParamReader) throws {
            id = try p.requiredString("id")
            title = try p.string("title")
            metadata = try p.object("metadata")?.object
        }
    }
    static func handle(_ p: Params, _ store: SessionStore) throws -> SessionObject {
        SessionObject(session: try store.update(id: p.id, title: p.title, metadata: p.metadata))
    }
}

/// Per-turn token usage and tool-call statistics, with totals.
enum SessionStatistics: SessionMethod {
    typealias Params = SessionID
    static let method = "session/stats"
    static let reaches: Set<Capability> = [.workspace]
    typealias Result = SessionStats
    static let access = Claim.Access.read
    static func handle(_ p: SessionID, _ store: SessionStore) throws -> SessionStats { try store.stats(id: p.id) }
}
