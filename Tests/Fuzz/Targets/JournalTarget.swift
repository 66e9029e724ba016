#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import AgentSessions

/// The session journal reader, through the public store: write a damaged journal into a
/// session folder, open the session with a fresh store, read its messages.
///
/// Input: when byte 0 is 0xFF, the rest is the whole journal. Otherwise the input is a list of
/// 4-byte edits `[op, position (2 bytes), value]` applied in turn to `JournalTemplate`'s journal:
/// flip bits, set a byte, cut the file, insert a byte, delete bytes, insert a run of zeros, or
/// append a copy of a line. Invariants:
/// - opening never crashes, and fails only with a typed `SessionError`;
/// - with k intact template lines before the first changed line (k ≥ 1), the session opens and
///   its messages start with exactly those of the first k records;
/// - when that changed line is not an intact record (checked with an independent CRC-32C),
///   the session holds exactly those messages: nothing after the damage is replayed;
/// - when even the first line is damaged, the session either does not open or holds no messages.
public enum JournalTarget: FuzzTarget {
    public static let name = "journal"

    public static func check(_ input: UnsafeRawBufferPointer) throws(FuzzFailure) {
        let template = JournalTemplate.shared
        var reader = ByteReader(input)
        let raw = input.first == 0xFF
        let journal: [UInt8]
        if raw {
            _ = reader.byte()
            journal = Array(reader.remaining)
        } else {
            journal = mutate(template.bytes, &reader)
        }
        install(journal, in: template)

        let store = SessionStore(directory: template.sessions, owner: "fuzz")
        defer { store.close() }
        let opened = Result { () throws(SessionError) in try store.messages(id: template.id, limit: 1000).map(\.id) }
        guard !raw else { return }

        var kept = 0
        while kept < template.lineEnds.count, template.lineEnds[kept] <= journal.count,
              journal[0..<template.lineEnds[kept]] == template.bytes[0..<template.lineEnds[kept]]
        {
            kept += 1
        }
        let start = kept == 0 ? 0 : template.lineEnds[kept - 1]
        let rest = journal[start...]
        let next = rest.firstIndex(of: 10).map { rest[start..<$0] }
        let nextIntact = next.map(ReferenceCRC32C.isIntact) ?? false
        let expected = template.messages(inFirst: kept)

        switch opened {
        case .success(let ids):
            if kept == 0 && !nextIntact {
                try require(ids.isEmpty, "a journal damaged from its first line opened with messages \(ids)")
            }
            try require(Array(ids.prefix(expected.count)) == expected,
                        "\(kept) intact records hold \(expected), the session opened with \(ids)")
            if !nextIntact {
                try require(ids == expected, "records after the damage were replayed: expected \(expected), got \(ids)")
            }
        case .failure(let error):
            try require(kept == 0, "\(kept) intact records, yet the session did not open: \(error)")
        }
    }

    /// Applies the edits read from `reader` to `bytes`.
    static func mutate(_ bytes: [UInt8], _ reader: inout ByteReader) -> [UInt8] {
        var out = bytes
        while !reader.isAtEnd {
            let op = reader.byte()
            let at = reader.uint16() % (out.count + 1)
            let value = reader.byte()
            switch op % 7 {
            case 0: if at < out.count { out[at] ^= value == 0 ? 1 : value }
            case 1: if at < out.count { out[at] = value }
            case 2: out.removeSubrange(at...)
            case 3: out.insert(value, at: at)
            case 4: out.removeSubrange(at..<min(out.count, at + 1 + Int(value % 16)))
            case 5: out.insert(contentsOf: repeatElement(0, count: Int(value)), at: at)
            default:
                // Append a copy of the line holding `at` (a record replayed twice, or a stale one).
                let lineStart = out[..<at].lastIndex(of: 10).map { $0 + 1 } ?? 0
                let lineEnd = out[at...].firstIndex(of: 10).map { $0 + 1 } ?? out.count
                out.append(contentsOf: out[lineStart..<lineEnd])
            }
        }
        return out
    }

    /// Makes the session folder hold `journal` and nothing else the loader reads.
    static func install(_ journal: [UInt8], in template: JournalTemplate) {
        for name in PathTree.names(template.folder) where name != "lease.json" {
            unlink(template.folder + "/" + name)
        }
        let fd = open(template.journalPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        precondition(fd >= 0, "cannot write the journal")
        _ = journal.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }
}
