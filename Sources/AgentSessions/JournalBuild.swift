import JSON

/// A new journal built in memory (for a rewrite, a fork or an import), together with the state
/// its replay gives: every record is applied to `data` as it is added, so the journal and the
/// state cannot disagree, and a record that does not fit is refused before anything is written.
struct JournalBuild {
    private(set) var bytes: [UInt8] = []
    private(set) var data: SessionData

    /// Starts with the journal's first record (`create` or `base`), with room for `reserving`
    /// bytes (a build whose size is known never copies its bytes while it grows).
    init(first: JSON, reserving: Int = 0) throws(SessionError) {
        let (line, crc) = JournalLine.encodeWithChecksum(first)
        do { data = try SessionData(create: first, ref: RecordRef(offset: 0, length: Int32(line.count)), crc: crc) } catch {
            throw .invalid("internal: a first record that does not open a session: \(error.message)")
        }
        bytes.reserveCapacity(max(reserving, line.count))
        bytes += line
    }

    /// A journal already checked and replayed (a session fetched from the hub).
    init(replayed bytes: [UInt8], data: SessionData) {
        self.bytes = bytes
        self.data = data
    }

    /// Adds a record built here (its JSON is applied as is).
    mutating func add(_ record: JSON) throws(SessionError) {
        let (line, crc) = JournalLine.encodeWithChecksum(record)
        let ref = RecordRef(offset: Int64(bytes.count), length: Int32(line.count))
        do { try data.apply(record, ref: ref, crc: crc) } catch {
            throw SessionError(.invalidArgument, "a record does not fit the session: \(error.message)",
                               .reason("damaged"))
        }
        bytes += line
    }

    /// Adds one `msg` record holding `messages` (read back from a journal), dated by the last;
    /// no messages, no record.
    mutating func add(messages: [Message]) throws(SessionError) {
        guard let last = messages.last else { return }
        try add(["t": "msg", "m": .array(messages.map(\.stored)), "at": .int(last.atNanos)])
    }

    /// Adds an intact line copied from another journal (checksum and newline included) whose
    /// record holds messages: `messages` are the ids at the positions kept. No JSON is parsed.
    mutating func copyMessageLine(_ line: ArraySlice<UInt8>, crc: UInt32, at: Int64,
                                  messages: [(id: String, position: Int)]) {
        let ref = RecordRef(offset: Int64(bytes.count), length: Int32(line.count))
        for m in messages where data.messageIndex[m.id] == nil {
            data.messageIndex[m.id] = data.messages.count
            data.messages.append(MessageRef(id: m.id, record: ref, position: m.position))
        }
        data.updatedAt = max(data.updatedAt, at)
        data.advance(ref, crc)
        bytes.append(contentsOf: line)
    }

    /// Adds an intact copied `end` line (a finished tool call's result), byte for byte. Its time
    /// is read from the line, so the state is the one a replay gives.
    /// A `begin` record (without arguments: a finished call needs none) comes first, so the call
    /// keeps its start time.
    mutating func copyResultLine(_ line: [UInt8], crc: UInt32, call: ToolCallState) throws(SessionError) {
        try add(["t": "begin", "call": .string(call.id), "name": .string(call.name), "args": .object([:]),
                 "at": .int(call.startedAt)])
        let at = line.withUnsafeBytes { JournalLine.decode(UnsafeRawBufferPointer(rebasing: $0.dropLast())) }?["at"]
        try copyLine(line, crc: crc, skeleton: ["t": "end", "call": .string(call.id), "name": .string(call.name),
                                                "isError": .bool(call.isError), "at": at ?? .int(call.startedAt)])
    }

    /// Adds an intact copied line whose record is applied through `skeleton` (the fields the
    /// state keeps; the line itself holds the rest, read on demand).
    mutating func copyLine(_ line: [UInt8], crc: UInt32, skeleton: JSON) throws(SessionError) {
        let ref = RecordRef(offset: Int64(bytes.count), length: Int32(line.count))
        do { try data.apply(skeleton, ref: ref, crc: crc) } catch {
            throw .invalid("internal: a copied record does not fit: \(error.message)")
        }
        bytes.append(contentsOf: line)
    }
}
