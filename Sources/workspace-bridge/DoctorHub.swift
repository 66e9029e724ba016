import SessionHub

extension DoctorChecks {
    /// The session hub: reachable with libpq's credentials, and a schema this binary can use.
    /// Read-only (the schema is created by `serve` or `mcp` at their first connection).
    func hubFinding() -> DoctorFinding {
        guard let hub else { return .ok("session hub", "none (no --hub: sessions stay on this machine and its sync engine)") }
        do throws(HubError) {
            let (version, supported) = try Hub.probe(hub)
            if version == 0 {
                return .ok("session hub", "reachable; its schema is not created yet (serve creates version \(supported))")
            }
            return .ok("session hub", "reachable, schema version \(version)\(version < supported ? " (serve migrates it to \(supported))" : "")")
        } catch {
            return .problem("session hub", error.message,
                            fix: "check that the server runs and the address, and give the password through PGPASSWORD, ~/.pgpass or a service file")
        }
    }
}
