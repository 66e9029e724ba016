#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SystemSupport

/// A typed failure of a workspace operation. `code` names the reason in the protocol schema's
/// enumeration (`data.code`); `path` is the workspace-relative path it concerns.
public struct WorkspaceError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable, CaseIterable {
        case notFound = "NotFound"
        case alreadyExists = "AlreadyExists"
        case notADirectory = "NotADirectory"
        case isADirectory = "IsADirectory"
        case directoryNotEmpty = "DirectoryNotEmpty"
        case outsideWorkspace = "OutsideWorkspace"
        case invalidPath = "InvalidPath"
        case symlinkNotFollowed = "SymlinkNotFollowed"
        /// A FIFO, socket or device: its bytes are never read or written (`data.type`).
        case notARegularFile = "NotARegularFile"
        case preconditionFailed = "PreconditionFailed"
        case notText = "NotText"
        case tooLarge = "TooLarge"
        case permissionDenied = "PermissionDenied"
        case noSpace = "NoSpace"
        case readOnly = "ReadOnly"
        case invalidArgument = "InvalidArgument"
        case ioError = "IOError"
        /// The cloud root is not there (not configured, unmounted, or removed).
        case cloudUnavailable = "CloudUnavailable"
        /// The target of a migration has too little free space.
        case insufficientSpace = "InsufficientSpace"
        /// A placeholder whose content has not been downloaded yet (`data.retryAfterMs`).
        case notDownloaded = "NotDownloaded"
        /// A bound of the work was reached (a regular expression that backtracks without end).
        case limitExceeded = "LimitExceeded"
        /// The caller's cancellation check said stop (the server answers -32800).
        case cancelled = "RequestCancelled"
    }

    /// Extra facts for the client, e.g. `currentEtag` for `PreconditionFailed`.
    public enum Detail: Sendable, Equatable {
        case string(String)
        case int(Int64)
        case null
    }

    public var code: Code
    public var message: String
    public var path: String?
    public var details: [String: Detail]

    public init(_ code: Code, _ message: String, path: String? = nil, details: [String: Detail] = [:]) {
        self.code = code
        self.message = message
        self.path = path
        self.details = details
    }

    public var description: String { "\(code.rawValue): \(message)" }

    /// Maps an errno from a system call on `path` to a typed error.
    public static func errno(_ e: Int32, _ operation: String, path: String) -> WorkspaceError {
        let shown = path.isEmpty ? "the workspace root" : "'\(path)'"
        switch e {
        case ENOENT: return WorkspaceError(.notFound, "\(shown) does not exist", path: path)
        case EEXIST: return WorkspaceError(.alreadyExists, "\(shown) already exists", path: path)
        case ENOTDIR: return WorkspaceError(.notADirectory, "a part of \(shown) is not a folder", path: path)
        case EISDIR: return WorkspaceError(.isADirectory, "\(shown) is a folder", path: path)
        case ENOTEMPTY: return WorkspaceError(.directoryNotEmpty, "\(shown) is a folder that is not empty", path: path)
        case EACCES, EPERM: return WorkspaceError(.permissionDenied, "permission denied: cannot \(operation) \(shown)", path: path)
        case ENOSPC, EDQUOT: return WorkspaceError(.noSpace, "no space left on the device: cannot \(operation) \(shown)", path: path)
        case EROFS: return WorkspaceError(.readOnly, "the file system is read-only: cannot \(operation) \(shown)", path: path)
        case ELOOP: return .symlink(path)
        case EXDEV: return WorkspaceError(.outsideWorkspace, "\(shown) leads outside the workspace", path: path)
        case ENAMETOOLONG: return WorkspaceError(.invalidPath, "\(shown) is too long", path: path)
        case EFBIG: return WorkspaceError(.tooLarge, "\(shown) would be too large", path: path)
        default:
            return WorkspaceError(.ioError, "cannot \(operation) \(shown): \(describeErrno(e))",
                                  path: path, details: ["errno": .int(Int64(e))])
        }
    }

    static func cancelled(_ path: WorkspacePath) -> WorkspaceError {
        WorkspaceError(.cancelled, "cancelled", path: path.string)
    }

    /// The entry at `path` is a FIFO, socket or device (`type`), whose bytes the workspace never
    /// reads or writes: opening one could wait forever for a peer.
    public static func notARegularFile(_ path: String, type: EntryType) -> WorkspaceError {
        let what: String
        switch type {
        case .fifo: what = "a named pipe (FIFO)"
        case .socket: what = "a socket"
        case .charDevice: what = "a character device"
        case .blockDevice: what = "a block device"
        default: what = "not a regular file"
        }
        let shown = path.isEmpty ? "the workspace root" : "'\(path)'"
        return WorkspaceError(.notARegularFile, "\(shown) is \(what); only regular files are read or written",
                              path: path, details: ["type": .string(type.rawValue)])
    }

    static func symlink(_ path: String) -> WorkspaceError {
        WorkspaceError(.symlinkNotFollowed,
                       "'\(path)' is or passes through a symbolic link; links are never followed inside the workspace",
                       path: path)
    }
}

