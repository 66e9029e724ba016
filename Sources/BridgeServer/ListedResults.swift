import AgentSessions
import JSON

/// A result whose JSON is built elsewhere: by a domain module (`AgentSessions`' `json` of a
/// retention policy, a prune report, until those wire forms move to the methods as the session
/// object's and the session values' did, `SessionResults.swift`, `SessionValueResults.swift`), by the journal (a recorded tool result replayed as
/// it was) or by a face's own store. Its field names are listed by hand, next to the method; the
/// schema agreement check compares these names (their types are not checked).
package protocol ListedObjectResult: MethodResult {
    static var fieldNames: [String] { get }
}

extension ListedObjectResult {
    package static var jsonType: String? { "object" }
    package static var shape: ResultShape {
        .object(fieldNames.map { ResultFieldShape(name: $0, type: nil, optional: true) })
    }
}

extension RetentionPolicy: ListedObjectResult {
    package static let fieldNames = ["maxBytesPerSession", "keepCompactedOriginalsSeconds", "keepEndedSessions"]
}

extension PruneReport: ListedObjectResult {
    package static let fieldNames = ["sessions", "deletedSessions"]
}

extension SessionStats: ListedObjectResult {
    package static let fieldNames = ["id", "turns", "totals", "unattributed"]
}

/// Domain values carried as fields of a result, encoded by their module.
extension Policy: ResultValue { package static var jsonType: String? { "object" } }
extension DeviceConditions: ResultValue { package static var jsonType: String? { "object" } }
extension NotImported: ResultValue { package static var jsonType: String? { "object" } }
