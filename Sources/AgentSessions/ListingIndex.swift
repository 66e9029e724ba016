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
    static func write(folder: String, _ d: SessionData, journal: FileIdentity) {
        let line = JournalLine.encode(["v": 1, "size": .int(journal.size), "mtime": .int(journal.mtimeNanos),
                                       "state": listed(d).snapshot.state])
        let path = folder + "/" + file
        let tmp = Disk.tempName(for: path)
        let fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return }
        let ok = line.withUnsafeBytes { Disk.writeAll(fd, $0) }
        close(fd)
        if !ok || rename(tmp, path) != 0 { unlink(tmp) }
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
