#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import AgentSessions
import JSON

/// A session written through the public store API once per process (create, messages, a tool
/// call, usage, a state change, more messages): its journal is the template the journal target
/// damages. Kept on tmpfs when there is one, so the loader's fsyncs cost little.
final class JournalTemplate: Sendable {
    static let shared = JournalTemplate()

    let sessions: String
    let id: String
    let folder: String
    let journalPath: String
    /// The journal's bytes and the end offset of each line (its newline included).
    let bytes: [UInt8]
    let lineEnds: [Int]
    /// The message ids held by each record, in order.
    let messagesPerRecord: [[String]]

    private init() {
        var shm = stat()
        let parent = stat("/dev/shm", &shm) == 0 ? "/dev/shm" : "/tmp"
        sessions = TempFolder.make("journal", in: parent) + "/sessions"
        let store = SessionStore(directory: sessions, owner: "fuzz")
        do {
            let s = try store.create(title: "fuzz", agentType: "test", metadata: ["k": [1, 2.5, "é\u{0}"]])
            id = s.id
            func say(_ ids: [String]) throws(SessionError) {
                _ = try store.appendMessages(id: s.id, messages: ids.map { MessageInput(id: $0, role: .user, content: JSON(stringLiteral: "text of \($0)")) })
            }
            try say(["m0"])
            try say(["m1", "m2"])
            _ = try store.transition(id: s.id, to: .running)
            _ = try store.beginToolCall(id: s.id, toolCallId: "t1", name: "readFile", arguments: ["path": "a.txt"])
            _ = try store.finishToolCall(id: s.id, toolCallId: "t1", result: ["content": "x\ny"])
            _ = try store.recordUsage(id: s.id, inputTokens: 10, outputTokens: 20, model: "m")
            try say(["m3"])
            _ = try store.transition(id: s.id, to: .waitingForUser)
            try say(["m4", "m5", "m6"])
            try say(["m7"])
        } catch {
            fatalError("cannot write the template session: \(error)")
        }
        store.close()
        folder = sessions + "/" + id
        journalPath = folder + "/journal.jsonl"
        guard let b = FuzzInputs.load(journalPath) else { fatalError("no template journal") }
        bytes = b
        lineEnds = b.indices.filter { b[$0] == 10 }.map { $0 + 1 }
        var perRecord: [[String]] = []
        var start = 0
        for end in lineEnds {
            let record = try? JSONCodec.decode(Array(b[(start + 9)..<(end - 1)]))
            if record?["t"] == "msg", let list = record?["m"]?.arrayValue {
                perRecord.append(list.compactMap { $0["id"]?.stringValue })
            } else {
                perRecord.append([])
            }
            start = end
        }
        messagesPerRecord = perRecord
        precondition(perRecord.joined().count == 8, "the template should hold 8 messages, has \(perRecord)")
    }

    /// The messages the first `records` records hold.
    func messages(inFirst records: Int) -> [String] { Array(messagesPerRecord.prefix(records).joined()) }
}

/// CRC-32C, bit by bit: an oracle independent of the product's table-driven one.
enum ReferenceCRC32C {
    static func checksum<C: Collection>(_ bytes: C) -> UInt32 where C.Element == UInt8 {
        var crc: UInt32 = 0xFFFF_FFFF
        for b in bytes {
            crc ^= UInt32(b)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
        }
        return ~crc
    }

    /// Whether `line` (its newline excluded) is `<8 lowercase hex> <body>` with the body's checksum.
    static func isIntact(_ line: ArraySlice<UInt8>) -> Bool {
        guard line.count >= 11 else { return false }
        let hex = line.prefix(8)
        guard line[line.startIndex + 8] == 32,
              hex.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }),
              let stated = UInt32(String(decoding: hex, as: UTF8.self), radix: 16)
        else { return false }
        return checksum(line.dropFirst(9)) == stated
    }
}
