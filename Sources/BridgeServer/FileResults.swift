import JSON
import Workspace

/// The file API's results, each declared once: its fields in the order they are sent.

/// `{path, size, etag, modified}`: what every write answers.
struct WriteResult: ObjectResult {
    var path: WorkspacePath
    var size: Int64
    var etag: String
    var modified: String

    init(_ s: FileStatus) {
        path = s.path
        size = s.size
        etag = s.etag
        modified = s.modified
    }

    static let fields: [ResultField<Self>] = [.field("path", \.path), .field("size", \.size), .field("etag", \.etag),
                                               .field("modified", \.modified)]
}

/// `loadFile`'s result: the content (as the requested encoding) and the file's status.
struct LoadResult: ObjectResult {
    var path: WorkspacePath
    var data: String
    var encoding: String
    var size: Int64
    var etag: String
    var modified: String
    var offset: Int64
    var length: Int64
    var eof: Bool
    /// Where the next window starts, while the file goes on.
    var nextOffset: Int64?
    /// A line window's facts: its lines, its first line's number when asked by number, and the
    /// next window's first line number.
    var lineCount: Int? = nil
    var startLine: Int? = nil
    var nextLine: Int? = nil

    static let fields: [ResultField<Self>] = [
        .field("path", \.path), .field("data", \.data), .field("encoding", \.encoding), .field("size", \.size),
        .field("etag", \.etag), .field("modified", \.modified), .field("offset", \.offset), .field("length", \.length),
        .field("eof", \.eof), .field("nextOffset", \.nextOffset), .field("lineCount", \.lineCount),
        .field("startLine", \.startLine), .field("nextLine", \.nextLine),
    ]
}

/// `getFileInfo`'s result.
struct FileInfo: ObjectResult {
    var status: FileStatus
    var sha256: String?

    static let fields: [ResultField<Self>] = [
        .field("path", \.status.path), .field("name", \.status.path.name), .field("type", \.status.type.rawValue),
        .field("size", \.status.size), .field("created", \.status.created), .field("modified", \.status.modified),
        .field("etag", \.status.etag), .field("mode", \.status.modeString), .field("state", \.status.state),
        .field("sha256", \.sha256),
    ]
}

/// `deleteFile`'s result.
struct Deleted: ObjectResult {
    var path: WorkspacePath
    var deleted = true

    static let fields: [ResultField<Self>] = [.field("path", \.path), .field("deleted", \.deleted)]
}

/// `moveFile`'s and `copyFile`'s result: where it went and what it is now; a folder copy also
/// lists every entry it left out.
struct Transferred: ObjectResult {
    var from: WorkspacePath
    var status: FileStatus
    var skippedEntries: [Skipped]?

    static let fields: [ResultField<Self>] = [
        .field("from", \.from), .field("to", \.status.path), .field("type", \.status.type.rawValue), .field("size", \.status.size),
        .field("etag", \.status.etag), .field("modified", \.status.modified), .field("skippedEntries", \.skippedEntries),
    ]
}

/// An entry a folder copy left out (the schema's `SkippedEntry`): path, type and the code
/// reading it would answer.
struct Skipped: ObjectResult {
    var entry: SkippedEntry

    static let fields: [ResultField<Self>] = [.field("path", \.entry.path), .field("type", \.entry.type.rawValue),
                                               .field("reason", \.entry.reason.rawValue)]
}

/// `createFolder`'s result.
struct FolderCreated: ObjectResult {
    var status: FileStatus

    static let fields: [ResultField<Self>] = [.field("path", \.status.path), .field("type", { _ in "directory" }),
                                               .field("modified", \.status.modified)]
}

/// A listing entry.
struct ListEntry: ObjectResult {
    var status: FileStatus

    static let fields: [ResultField<Self>] = [
        .field("path", \.status.path), .field("name", \.status.path.name), .field("type", \.status.type.rawValue),
        .field("size", \.status.size), .field("modified", \.status.modified), .field("etag", \.status.etag),
        .field("state", \.status.state),
    ]
}

/// `listFiles`' result: a page of entries and the cursor of the next page.
struct Listing: ObjectResult {
    var entries: [ListEntry]
    var nextCursor: String?

    init(_ page: Workspace.ListPage) {
        entries = page.entries.map(ListEntry.init)
        nextCursor = page.next.map(ListCursor.encode)
    }

    static let fields: [ResultField<Self>] = [.field("entries", \.entries), .field("nextCursor", \.nextCursor)]
}

/// One line `searchFiles` found.
struct SearchMatch: ObjectResult {
    var match: Workspace.SearchMatch

    static let fields: [ResultField<Self>] = [.field("path", \.match.path), .field("line", \.match.line),
                                               .field("column", \.match.column), .field("text", \.match.text)]
}

/// `searchFiles`' result.
struct SearchResult: ObjectResult {
    var matches: [SearchMatch]
    var truncated: Bool
    var filesSearched: Int
    var specialFilesSkipped: Int
    /// Files and folders left out by ignore files (a folder counts once).
    var ignored: Int

    static let fields: [ResultField<Self>] = [.field("matches", \.matches), .field("truncated", \.truncated),
                                               .field("filesSearched", \.filesSearched),
                                               .field("specialFilesSkipped", \.specialFilesSkipped), .field("ignored", \.ignored)]
}

/// `watchFiles`' and `unwatchFiles`' result.
struct Watching: ObjectResult {
    var watching: Bool
    static let fields: [ResultField<Self>] = [.field("watching", \.watching)]
}

/// `getFileUri`'s result.
struct FileURI: ObjectResult {
    var uri: String
    static let fields: [ResultField<Self>] = [.field("uri", \.uri)]
}

/// `exportFile`'s result.
struct Exported: ObjectResult {
    var path: WorkspacePath
    var destination: String
    var size: Int64
    static let fields: [ResultField<Self>] = [.field("path", \.path), .field("destination", \.destination), .field("size", \.size)]
}
