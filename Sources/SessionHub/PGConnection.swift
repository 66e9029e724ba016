#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CLibPQ

/// What went wrong talking to the hub, as libpq said it (never with a password: libpq's
/// messages name the host, port and user at most).
public struct HubError: Error, Sendable, CustomStringConvertible {
    public var message: String
    /// The server's SQLSTATE, when the server answered with an error.
    public var sqlState: String?
    /// The connection itself failed (the next call connects again).
    public var connectionLost: Bool
    public var description: String { message }
    init(_ message: String, sqlState: String? = nil, connectionLost: Bool = false) {
        self.message = message
        self.sqlState = sqlState
        self.connectionLost = connectionLost
    }
}

/// One parameter of a query, sent apart from the SQL text (`PQexecParams`): values never become SQL.
enum PGParam {
    case text(String)
    case int(Int64)
    /// `bytea`, sent in binary.
    case bytes([UInt8])
}

/// A query's rows, copied out of libpq's result (text format; `bytea` unescaped by libpq).
struct PGRows {
    var values: [[[UInt8]?]]
    var affected: Int

    var count: Int { values.count }
    func text(_ row: Int, _ column: Int) -> String? { values[row][column].map { String(decoding: $0, as: UTF8.self) } }
    func int(_ row: Int, _ column: Int) -> Int64? { text(row, column).flatMap { Int64($0) } }
    /// A `bytea` column as its bytes (the text form `\x…` decoded by `PQunescapeBytea`).
    func bytes(_ row: Int, _ column: Int) -> [UInt8]? {
        guard let text = values[row][column] else { return nil }
        var n = 0
        guard let p = (text + [0]).withUnsafeBufferPointer({ b in
            b.baseAddress.flatMap { PQunescapeBytea($0, &n) }
        }) else { return nil }
        defer { PQfreemem(p) }
        return Array(UnsafeBufferPointer(start: p, count: n))
    }
}

/// The hub's connection: one libpq connection, used by one thread at a time (libpq's rule for a
/// `PGconn`), which a lock here enforces: every use goes through `withSession`, which holds it.
/// Connected on first use and again after a failure; every value travels as a parameter.
final class PGConnection: @unchecked Sendable {  // `conn` only under `lock`
    private let keywords: [String]
    private let values: [String]
    private let lock = PThreadLock()
    private var conn: OpaquePointer?

    /// `conninfo`: a `postgresql://` URI or `key=value` string without a password; libpq finds
    /// the password itself (PGPASSWORD, ~/.pgpass, a service file).
    init(conninfo: String, applicationName: String) {
        // The connection string is expanded from `dbname`; the rest bounds how long a dead or
        // stalled hub can hold a caller: the connect, a silent peer (TCP user timeout,
        // keepalives), a statement.
        keywords = ["dbname", "application_name", "connect_timeout", "tcp_user_timeout", "keepalives_idle",
                    "keepalives_interval", "keepalives_count", "options"]
        values = [conninfo, applicationName, "5", "10000", "5", "2", "2", "-c statement_timeout=15000"]
    }

    deinit { if let conn { PQfinish(conn) } }

    /// Runs `body` with the connection (connecting first when needed), the lock held.
    func withSession<T>(_ body: (PGSession) throws(HubError) -> T) throws(HubError) -> T {
        lock.lock()
        defer { lock.unlock() }
        let c = try connected()
        do { return try body(PGSession(conn: c)) } catch {
            if PQstatus(c) != CONNECTION_OK {
                PQfinish(c)
                conn = nil
            }
            throw error
        }
    }

    /// Drops the connection (the next use connects again). Lock held by the caller or not needed.
    func close() {
        lock.lock()
        defer { lock.unlock() }
        if let conn { PQfinish(conn) }
        conn = nil
    }

    private func connected() throws(HubError) -> OpaquePointer {
        if let conn, PQstatus(conn) == CONNECTION_OK { return conn }
        if let conn { PQfinish(conn) }
        conn = nil
        let c = withCStrings(keywords) { k in withCStrings(values) { v in PQconnectdbParams(k, v, 1) } }
        guard let c else { throw HubError("cannot reach the hub: libpq could not allocate a connection", connectionLost: true) }
        guard PQstatus(c) == CONNECTION_OK else {
            let message = Self.errorText(c)
            PQfinish(c)
            throw HubError("cannot reach the hub: \(message)", connectionLost: true)
        }
        conn = c
        return c
    }

    static func errorText(_ c: OpaquePointer) -> String {
        guard let m = PQerrorMessage(c) else { return "unknown error" }
        return String(cString: m).trimmingNewlines()
    }

    /// `strings` as the NULL-ended array of C strings libpq's `…Params` calls take.
    private func withCStrings<T>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) -> T) -> T {
        let copies = strings.map { strdup($0) }
        defer { copies.forEach { free($0) } }
        let pointers: [UnsafePointer<CChar>?] = copies.map { $0.map { UnsafePointer($0) } } + [nil]
        return pointers.withUnsafeBufferPointer { body($0.baseAddress) }
    }
}

/// The connection while `PGConnection.withSession` holds it: valid only inside that call.
struct PGSession {
    let conn: OpaquePointer

    /// Runs one statement with its values as parameters; rows in text form.
    @discardableResult
    func query(_ sql: String, _ params: [PGParam] = []) throws(HubError) -> PGRows {
        var buffers: [[UInt8]] = []
        var formats: [Int32] = []
        for p in params {
            switch p {
            case .text(let s): buffers.append(Array(s.utf8) + [0]); formats.append(0)
            case .int(let i): buffers.append(Array(String(i).utf8) + [0]); formats.append(0)
            case .bytes(let b): buffers.append(b); formats.append(1)
            }
        }
        let lengths = buffers.map { Int32(clamping: $0.count) }
        let result: OpaquePointer? = Self.withPointers(buffers) { values in
            lengths.withUnsafeBufferPointer { l in
                formats.withUnsafeBufferPointer { f in
                    PQexecParams(conn, sql, Int32(params.count), nil, values, l.baseAddress, f.baseAddress, 0)
                }
            }
        }
        guard let result else {
            throw HubError("the hub did not answer: \(PGConnection.errorText(conn))", connectionLost: PQstatus(conn) != CONNECTION_OK)
        }
        defer { PQclear(result) }
        let status = PQresultStatus(result)
        guard status == PGRES_TUPLES_OK || status == PGRES_COMMAND_OK else {
            let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
            let text = PQresultErrorMessage(result).map { String(cString: $0).trimmingNewlines() } ?? "unknown error"
            throw HubError("the hub refused a statement: \(text)", sqlState: state,
                           connectionLost: PQstatus(conn) != CONNECTION_OK)
        }
        var rows: [[[UInt8]?]] = []
        let (nr, nc) = (PQntuples(result), PQnfields(result))
        rows.reserveCapacity(Int(nr))
        for r in 0..<nr {
            var row: [[UInt8]?] = []
            for c in 0..<nc {
                if PQgetisnull(result, r, c) != 0 { row.append(nil); continue }
                let n = Int(PQgetlength(result, r, c))
                guard let p = PQgetvalue(result, r, c) else { row.append(nil); continue }
                row.append(p.withMemoryRebound(to: UInt8.self, capacity: n) { Array(UnsafeBufferPointer(start: $0, count: n)) })
            }
            rows.append(row)
        }
        let affected = PQcmdTuples(result).flatMap { Int(String(cString: $0)) } ?? 0
        return PGRows(values: rows, affected: affected)
    }

    /// Runs `body` in one transaction: committed when it returns, rolled back when it throws.
    func transaction<T>(_ body: () throws(HubError) -> T) throws(HubError) -> T {
        try query("BEGIN")
        do {
            let value = try body()
            try query("COMMIT")
            return value
        } catch {
            if PQstatus(conn) == CONNECTION_OK { _ = try? query("ROLLBACK") }
            throw error
        }
    }

    private static func withPointers<T>(_ buffers: [[UInt8]], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) -> T) -> T {
        guard !buffers.isEmpty else { return body(nil) }
        // Copies that outlive the call: a Swift array's storage is not pinned across the map.
        let copies: [UnsafeMutablePointer<UInt8>] = buffers.map { b in
            let p = UnsafeMutablePointer<UInt8>.allocate(capacity: max(1, b.count))
            p.initialize(from: b, count: b.count)
            return p
        }
        defer { copies.forEach { $0.deallocate() } }
        let pointers: [UnsafePointer<CChar>?] = copies.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) }
        return pointers.withUnsafeBufferPointer { body($0.baseAddress) }
    }
}

/// A plain lock held across libpq calls (network I/O inside, so not a `Mutex` closure).
final class PThreadLock: @unchecked Sendable {
    private let m = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    init() { pthread_mutex_init(m, nil) }
    deinit { pthread_mutex_destroy(m); m.deallocate() }
    func lock() { pthread_mutex_lock(m) }
    func unlock() { pthread_mutex_unlock(m) }
}

extension String {
    func trimmingNewlines() -> String {
        var s = Substring(self)
        while let last = s.last, last == "\n" || last == "\r" || last == " " { s = s.dropLast() }
        return String(s)
    }
}
