#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Consecutive entries of a listing page that share a folder, as the folder's read left them.
///
/// A page is a few runs (a folder's entries are cut where the walk goes into a subfolder or
/// skips an entry), so a page of 10,000 entries holds no per-entry path or status: `listFiles`
/// writes each entry from its `ListItem`, the folder's path once per run. Immutable.
public struct ListRun: @unchecked Sendable {
    /// The folder the entries are in.
    public let folder: WorkspacePath
    let entries: ArraySlice<DirectoryView.Entry>

    public var count: Int { entries.count }

    /// The `i`th entry (from 0).
    public subscript(i: Int) -> ListItem { ListItem(entries[entries.startIndex + i]) }

    /// Each entry's full status (path included), in order.
    public var statuses: [FileStatus] { entries.map { $0.status(at: folder.appending($0.name)) } }
}

/// What a listing reports of one entry, but its path: the facts of `FileStatus` that a
/// `listFiles` entry carries, read from the entry's `stat` without building strings.
public struct ListItem {
    /// The name clients see (a placeholder's real name).
    public let name: String
    public let type: EntryType
    public let size: Int64
    public let modifiedNanos: Int64
    /// `current`, `notDownloaded` or `conflicted`.
    public let state: String
    private let etagHash: UInt64

    init(_ e: DirectoryView.Entry) {
        name = e.name
        let st = e.stat
        var type = EntryType(mode: st.st_mode)
        var size = type == .directory ? 0 : Int64(st.st_size)
        if e.state == "notDownloaded" {
            type = .file
            size = e.placeholderSize ?? size
        }
        self.type = type
        self.size = size
        modifiedNanos = st.modifiedNanos
        state = e.state
        etagHash = FileStatus.etagHash(st)
    }

    /// Writes the etag's 16 ASCII bytes at `b` (the same text as `FileStatus.etag`).
    public func writeEtag(into b: UnsafeMutablePointer<UInt8>) { FileStatus.writeEtag(etagHash, into: b) }
}
