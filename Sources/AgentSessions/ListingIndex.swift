#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import JSON
import SystemSupport

/// A session's listing index, `listing.json` in its folder: the facts `session/list` answers
/// (no messages, no finished tool calls), and the size and modification time of the journal it
/// was made from. `session/list` uses it instead of the journal while the journal still has that
/// size and time; otherwise the journal is read once and the index written again.
///
/// It is a cache, never the truth: written without a flush (a crash may leave it stale or
/// absent, which only costs one journal read), read as untrusted (bounded, checksummed, parsed
/// by the snapshot's parser, its id checked against the folder's name).
enum ListingIndex {
    static let file = "listing.json"
    static let cap = FileCap(what: "the listing index", bytes: 1 << 20)

    /// The facts of `d` kept for listing: without messages, finished tool calls or checkpoint.
    static func listed(_ d: SessionData) -> SessionData {
        var l = d
        l.messages = []
        l.messageIndex = [:]
        l.toolCalls = d.toolCalls.filter { !$0.value.isFinished }
        l.checkpoint = nil
        return l
    }

    /// Writes the index of `d`, made from the journal whose identity is `journal`. Best effort.
    ///
    /// In place (written from its start, then cut to its length), not a temporary file renamed
    /// over it: on ext4 a rename over an existing file makes the kernel write the new file's data
    /// out at once (`auto_da_alloc`), which cost the first listing of 1,000 changed sessions
    /// 0.1-0.9 s on a loaded disk. A reader that meets a half-written index finds its checksum
    /// wrong (or its size or time stale) and reads the journal, as for any stale index. Only a
    /// regular file with one name is written (never through a link).
    static func write(folder: String, _ d: SessionData, journal: FileIdentity) {
        let line = JournalLine.encode(["v": 1, "size": .int(journal.size), "mtime": .int(journal.mtimeNanos),
                                       "state": listed(d).snapshot.state])
        let path = folder + "/" + file
        let fd = Disk.openRegular(path, O_WRONLY | O_CREAT | O_NOFOLLOW)
        guard fd >= 0 else { return }
        defer { Disk.closeDescriptor(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, st.st_nlink == 1 else { return }
        let ok = line.withUnsafeBytes { Disk.writeAll(fd, $0, at: 0) } && ftruncate(fd, off_t(line.count)) == 0
        if !ok { unlink(path) }
    }

    /// The listed facts, if the index is intact, names session `id` and was made from a journal
    /// of `journal`'s size and modification time.
    static func read(folder: String, id: String, matching journal: FileIdentity) -> SessionData? {
        guard let bytes = try? Disk.readFile(folder + "/" + file, cap: cap), bytes.last == 0x0A,
              let json = bytes.withUnsafeBytes({ JournalLine.decode(UnsafeRawBufferPointer(rebasing: $0.dropLast())) }),
              json["v"]?.intValue == 1, json["size"]?.intValue == journal.size, json["mtime"]?.intValue == journal.mtimeNanos,
              let state = json["state"], state["id"]?.stringValue == id,
              let d = SessionData(snapshot: Snapshot(records: 0, end: 0, lastCrc: 0, state: state))
        else { return nil }
        return d
    }
}
