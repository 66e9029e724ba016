/// One thing `workspace-bridge doctor` looked at: what it found and, for a problem or a
/// warning, the one step that fixes it.
struct DoctorFinding: Equatable {
    enum Severity: String {
        /// Works as it is.
        case ok
        /// Works, but probably not as the user means (e.g. a cloud root no sync engine keeps).
        case warning
        /// The server will fail on it (or is unsafe): `doctor` exits with status 1.
        case problem
    }

    var severity: Severity
    /// What was checked: "jansson", "config folder", "local root"…
    var subject: String
    /// What was found, with the path or version concerned.
    var found: String
    /// The fix, for a warning or a problem.
    var fix: String?

    static func ok(_ subject: String, _ found: String) -> DoctorFinding { .init(severity: .ok, subject: subject, found: found) }

    static func warning(_ subject: String, _ found: String, fix: String) -> DoctorFinding {
        .init(severity: .warning, subject: subject, found: found, fix: fix)
    }

    static func problem(_ subject: String, _ found: String, fix: String) -> DoctorFinding {
        .init(severity: .problem, subject: subject, found: found, fix: fix)
    }

    /// The finding as printed: `ok       subject: found`, then `         fix: …` for the others.
    var lines: [String] {
        let label = severity == .ok ? "ok" : severity.rawValue.uppercased()
        let pad = String(repeating: " ", count: 9 - label.count)
        var out = ["\(label)\(pad)\(subject): \(found)"]
        if let fix { out.append("         fix: \(fix)") }
        return out
    }
}
