/// The hub's tables, created and migrated by the binary, in a schema of the connecting role's own.
///
/// Isolation: each role (user) keeps its sessions in the schema named after it, owned by it; the
/// binary uses no other. PostgreSQL gives other roles no access to a schema or its tables unless
/// the owner grants it, so one user cannot read or write another's sessions (a superuser can, as
/// on any PostgreSQL server). A schema of that name owned by another role is refused: its owner
/// could read everything written there.
enum HubSchema {
    /// The version this binary writes and reads; a hub whose schema is newer is refused.
    static let version: Int64 = 1

    /// Each step takes the schema from version `index` to `index + 1`.
    static let migrations: [[String]] = [
        [
            """
            CREATE TABLE wb_records (
                session_id text NOT NULL CHECK (length(session_id) BETWEEN 1 AND 200),
                record_offset bigint NOT NULL CHECK (record_offset >= 0),
                record bytea NOT NULL,
                crc bigint NOT NULL,
                origin text NOT NULL,
                committed_at timestamptz NOT NULL DEFAULT now(),
                PRIMARY KEY (session_id, record_offset))
            """,
        ],
    ]

    struct NewerSchema: Error {}

    /// Makes the role's schema current for this connection, creating it (and the tables) or
    /// migrating it when needed; returns the version found before (0: none). `create: false`
    /// only reads (for `doctor`).
    @discardableResult
    static func prepare(_ s: PGSession, create: Bool = true) throws(HubError) -> Int64 {
        let owned = try s.query("""
            SELECT pg_catalog.pg_get_userbyid(n.nspowner) = current_user FROM pg_catalog.pg_namespace n
            WHERE n.nspname = current_user
            """)
        if owned.count == 0 {
            guard create else { return 0 }
            do { try s.query("CREATE SCHEMA IF NOT EXISTS AUTHORIZATION CURRENT_USER") } catch {
                throw HubError("cannot create this user's schema in the hub (\(error.message)); "
                    + "an administrator can run: CREATE SCHEMA AUTHORIZATION <user>", sqlState: error.sqlState)
            }
        } else if owned.text(0, 0) != "t" {
            throw HubError("the hub's schema named after this user belongs to another role, which could read every "
                + "session written there: refused (drop it, or connect as another user)")
        }
        // Only this schema (and the system catalog, always searched first) for unqualified names.
        try s.query("SELECT pg_catalog.set_config('search_path', pg_catalog.quote_ident(current_user), false)")
        return try s.transaction { () throws(HubError) -> Int64 in
            // One migrating connection at a time per user.
            try s.query("SELECT pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtext(current_user))")
            let exists = try s.query("SELECT pg_catalog.to_regclass('wb_version') IS NOT NULL")
            var found: Int64 = 0
            if exists.text(0, 0) == "t" {
                let v = try s.query("SELECT version FROM wb_version")
                found = v.count > 0 ? v.int(0, 0) ?? 0 : 0
            } else {
                guard create else { return 0 }
                try s.query("CREATE TABLE wb_version (version bigint NOT NULL)")
                try s.query("INSERT INTO wb_version (version) VALUES (0)")
            }
            guard found <= version else {
                throw HubError("the hub's schema is version \(found), newer than the version \(version) this "
                    + "workspace-bridge knows: upgrade workspace-bridge on this machine")
            }
            guard found < version, create else { return found }
            for step in Int(found)..<Int(version) {
                for statement in migrations[step] { try s.query(statement) }
            }
            try s.query("UPDATE wb_version SET version = $1", [.int(version)])
            return found
        }
    }
}
