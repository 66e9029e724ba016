#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import JSON
import SystemSupport

/// A typed failure of a session-store or queue operation.
///
/// `code` is the name in the protocol schema's `ErrorData.code` enumeration; `details` holds the
/// facts a client needs, typed (for `InvalidTransition`: the two states; for `SessionLocked`:
/// the owner and when its lease ends). The faces turn them into the protocol's `error.data` in
/// one place (`SessionErrorData`).
public struct SessionError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable, CaseIterable {
        case notFound = "NotFound"
        case invalidTransition = "InvalidTransition"
        case budgetExceeded = "BudgetExceeded"
        /// Another owner holds the session's lease: the session is read-only here.
        case sessionLocked = "SessionLocked"
        case invalidArgument = "InvalidArgument"
        /// A value over its bound (message or session metadata over 64 KiB): `data.limit`, `data.bytes`.
        case tooLarge = "TooLarge"
        /// The disk is full (ENOSPC, EDQUOT): nothing of the operation was kept.
        case noSpace = "NoSpace"
        /// The file system is mounted read-only (EROFS).
        case readOnly = "ReadOnly"
        /// The files' permissions refuse the operation (EACCES, EPERM).
        case permissionDenied = "PermissionDenied"
        case ioError = "IOError"
        /// The device policy deferred the work (`data`: `reason`, `queued`, `confirmable`).
        /// Made by `WorkDecision.error(queued:)`; the schema lists it with the method that throws it.
        case deferred = "Deferred"
        /// A bound of the operation was reached (`data.reason` says which, `data.limit` its value).
        case limitExceeded = "LimitExceeded"
        /// The caller cancelled a long read (`session/search`); the server answers `-32800`.
        case cancelled = "RequestCancelled"
    }

    public let kind: Code
    public let message: String
    public let details: Details

    /// The schema's `data.code` string.
    public var code: String { kind.rawValue }
    public var description: String { "\(code): \(message)" }

    public init(_ kind: Code, _ message: String, _ details: Details = .none) {
        self.kind = kind
        self.message = message
        self.details = details
    }

    static func notFound(_ what: String, _ id: String) -> SessionError {
        SessionError(.notFound, "no \(what) with id \(id)", .id(id))
    }

    static func invalidTransition(_ from: SessionState, _ to: SessionState) -> SessionError {
        let list = from.allowedTransitions.map(\.rawValue).joined(separator: ", ")
        return SessionError(
            .invalidTransition,
            "cannot move a session from \(from.rawValue) to \(to.rawValue)"
                + (list.isEmpty ? " (\(from.rawValue) is final)" : " (allowed: \(list))"),
            .transition(from: from, to: to))
    }

    static func invalid(_ message: String) -> SessionError {
        SessionError(.invalidArgument, message)
    }

    /// A failed system call: `NoSpace`, `ReadOnly` and `PermissionDenied` for the failures a
    /// client can act on (free space, remount, fix permissions), else `IOError`; `data.errno` always.
    static func io(_ message: String, errno code: Int32, path: String? = nil) -> SessionError {
        let kind: Code = switch code {
        case ENOSPC, EDQUOT: .noSpace
        case EROFS: .readOnly
        case EACCES, EPERM: .permissionDenied
        default: .ioError
        }
        return SessionError(kind, "\(message): \(describeErrno(code))", .system(errno: code, path: path))
    }
}

/// A problem the store worked around (a torn tail, a damaged journal, a bad snapshot): the
/// operation went on, and the caller should log it.
public struct SessionWarning: Sendable, Equatable, CustomStringConvertible {
    /// The session concerned, or `nil` for the queue or the store itself.
    public let sessionId: String?
    public let message: String
    public var description: String { sessionId.map { "session \($0): \(message)" } ?? message }

    public init(sessionId: String?, message: String) {
        self.sessionId = sessionId
        self.message = message
    }
}

/// `value` unless it is absent or JSON `null`. (Beware `x.isNull ? nil : x`: `JSON` is
/// `ExpressibleByNilLiteral`, so that `nil` can silently become `JSON.null`.)
func nonNull(_ value: JSON?) -> JSON? {
    guard let value, !value.isNull else { return nil }
    return value
}

extension SessionError {
    /// The same error with `root/` taken off the paths it names (in its details and the message).
    public func relative(to root: String) -> SessionError {
        let prefix = root.hasSuffix("/") ? root : root + "/"
        func cut(_ p: String) -> String { p.hasPrefix(prefix) ? String(p.dropFirst(prefix.count)) : p }
        let d: Details = switch details {
        case .system(let code, let path?): .system(errno: code, path: cut(path))
        case .path(let path): .path(cut(path))
        default: details
        }
        return SessionError(kind, message.replacing(prefix, with: ""), d)
    }
}
