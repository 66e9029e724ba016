import CLibPQ

/// Where the hub is: a `postgresql://` URI (or libpq `key=value` string) as given to `--hub` or
/// `WORKSPACE_BRIDGE_HUB`, checked by libpq's own parser. A password in it is refused: a command
/// line is visible to every user in `ps`, so the password comes from libpq's usual sources
/// (PGPASSWORD, ~/.pgpass, a service file) instead.
public struct HubAddress: Sendable, Equatable {
    public let conninfo: String

    public struct Refused: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    public init(_ text: String) throws(Refused) {
        var error: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(text, &error) else {
            let why = error.map { String(cString: $0).trimmingNewlines() } ?? "not a connection string"
            if let error { PQfreemem(error) }
            throw Refused(description: "the hub address is not a PostgreSQL connection string: \(why)")
        }
        defer { PQconninfoFree(options) }
        var o = options
        while let keyword = o.pointee.keyword {
            if String(cString: keyword) == "password", let v = o.pointee.val, v.pointee != 0 {
                throw Refused(description: "the hub address holds a password, which `ps` would show to every user: "
                    + "remove it and give it through PGPASSWORD, ~/.pgpass or a service file (libpq reads them)")
            }
            o += 1
        }
        conninfo = text
    }
}
