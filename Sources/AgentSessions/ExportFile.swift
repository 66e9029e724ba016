import JSON

/// What an import left out of a file because it would have granted something: decided approvals
/// (allowed or denied by someone else, elsewhere) and remembered decisions. The caller shows it.
public struct NotImported: Sendable, Equatable {
    public var decidedApprovals = 0
    /// The tool names whose remembered decision was dropped, sorted.
    public var rememberedDecisions: [String] = []

    public var isEmpty: Bool { decidedApprovals == 0 && rememberedDecisions.isEmpty }
}

/// An export file read for import as if an attacker wrote it (issue 22).
///
/// Reading walks the document once with `JSONStreamReader`: every top-level member is parsed
/// but `messages` and `toolCalls`, whose elements are only stepped over here and read one at a
/// time while the journal is built (`messages()`, `toolCalls()`), so the file never exists as a
/// tree in memory. The checks are the format, the version, the checksum (hashed in place), the
/// session's state (a known one), its usage (whole numbers and a finite cost, none negative,
/// none beyond `UsageCaps`) and its compactions. Consent is never imported: the session's
/// decided approvals and remembered decisions are dropped (`notImported` counts them); pending
/// approvals, which grant nothing until this workspace's user answers them, stay visible in
/// `Session.pendingApprovals`. Every refusal is `InvalidArgument` with `data.reason`.
struct ExportFile {
    let bytes: [UInt8]
    let session: JSON
    let fileId: String
    let compactions: [Compaction]
    /// The checked facts for the journal's `base` record (no `id`, `at` or `toolSequence` yet).
    let base: JSONObject
    let extras: SessionExtras
    let notImported: NotImported
    private let messagesAt: Int
    private let toolCallsAt: Int

    init(_ bytes: [UInt8]) throws(SessionError) {
        self.bytes = bytes
        var r = JSONStreamReader(bytes)
        guard r.nextIsObject() else { throw ExportFormat.damaged("it is not a JSON object") }
        var members = JSONObject()
        var keys: [String] = []
        var arrays: [String: Int] = [:]
        var twice: String?
        do throws(JSONDecodeError) {
            try r.enterObject()
            while let key = try r.nextKey() {
                guard !keys.contains(key) else {
                    twice = key
                    break
                }
                keys.append(key)
                if key == "messages" || key == "toolCalls", r.enterArray() {
                    arrays[key] = r.position
                    while try r.skipElement() {}
                } else {
                    members[key] = try r.value()
                }
            }
            if twice == nil { try r.finish() }
        } catch {
            throw ExportFormat.damaged("not JSON (\(error))")
        }
        if let twice { throw ExportFormat.damaged("member \(twice) occurs twice", field: twice) }
        guard members["format"]?.stringValue == ExportFormat.name else {
            throw ExportFormat.damaged("it is not a \(ExportFormat.name) file", reason: "foreign")
        }
        guard members["version"]?.intValue == ExportFormat.version else {
            throw ExportFormat.damaged("version \(members["version"].map { JSONCodec.encodeString($0) } ?? "none") is not 1",
                                       reason: "unsupportedVersion")
        }
        guard members["checksum"]?["algorithm"]?.stringValue == "sha256", let stated = members["checksum"]?["value"]?.stringValue,
              stated.utf8.count == 64, keys.last == "checksum", let at = ExportFormat.lastRange(of: stated, in: bytes)
        else { throw ExportFormat.damaged("it has no sha256 checksum as its last member") }
        guard try Digest.sha256(bytes, replacing: at, with: Array(ExportFormat.zeros.utf8)) == stated else {
            throw ExportFormat.damaged("its checksum does not match its content")
        }
        guard let s = members["session"], case .object = s, let fileId = s["id"]?.stringValue,
              let list = members["compactions"]?.arrayValue, let m = arrays["messages"], let t = arrays["toolCalls"]
        else { throw ExportFormat.damaged("session, messages, compactions or toolCalls is missing") }
        session = s
        self.fileId = fileId
        messagesAt = m
        toolCallsAt = t
        compactions = try Self.compactions(list)
        (base, extras, notImported) = try Self.facts(s)
    }

    /// Reads the messages, one at a time, in order.
    func messages(_ each: (JSON) throws(SessionError) -> Void) throws(SessionError) {
        try elements(at: messagesAt, each)
    }

    /// Reads the tool calls, one at a time, in order.
    func toolCalls(_ each: (JSON) throws(SessionError) -> Void) throws(SessionError) {
        try elements(at: toolCallsAt, each)
    }

    private func elements(at position: Int, _ each: (JSON) throws(SessionError) -> Void) throws(SessionError) {
        var r = JSONStreamReader(bytes, at: position)
        while true {
            let next: JSON?
            do { next = try r.nextElement() } catch { throw ExportFormat.damaged("not JSON (\(error))") }
            guard let next else { return }
            try each(next)
        }
    }

    /// The compactions, refused when incomplete. A file's compactions never carry journal
    /// references (they point into another journal): any are ignored.
    private static func compactions(_ list: [JSON]) throws(SessionError) -> [Compaction] {
        var out: [Compaction] = []
        var ids = Set<String>()
        for c in list {
            guard case .object(var o) = c else { throw ExportFormat.damaged("a compaction is not an object") }
            o["originals"] = nil
            guard let made = Compaction(stored: .object(o)), made.count >= 0 else {
                throw ExportFormat.damaged("a compaction is incomplete")
            }
            guard ids.insert(made.id).inserted else {
                throw ExportFormat.damaged("compaction id \(made.id) occurs twice", field: "compactions.id", id: made.id)
            }
            out.append(made)
        }
        return out
    }

    /// The session's facts for the `base` record, checked; consent left out.
    private static func facts(_ s: JSON) throws(SessionError) -> (JSONObject, SessionExtras, NotImported) {
        guard let raw = s["state"]?.stringValue, let state = SessionState(rawValue: raw) else {
            let shown = s["state"].map { JSONCodec.encodeString($0) } ?? "none"
            throw ExportFormat.damaged("the session's state \(shown) is not one of "
                + SessionState.allCases.map(\.rawValue).joined(separator: ", "), field: "session.state")
        }
        var base: JSONObject = ["state": .string(state.rawValue)]
        for key in ["title", "agentType", "metadata", "createdAt", "updatedAt", "error", "declared"] {
            if let v = s[key] { base[key] = v }
        }
        if let c = s["config"] {
            do { base["config"] = try SessionConfig(checking: c).stored } catch {
                throw ExportFormat.damaged("the session's config is invalid: \(error.message)", field: "session.config")
            }
        }
        base["usage"] = try UsageCaps.checked(s["usage"]).stored
        var extras = SessionExtras(stored: s["extras"]) ?? SessionExtras()
        var dropped = NotImported()
        dropped.decidedApprovals = extras.approvals.filter { $0.decision != nil }.count
        dropped.rememberedDecisions = Set(extras.remembered.keys.map(Approval.rememberedTool)).sorted()
        extras.approvals = extras.approvals.filter { $0.decision == nil }.map { a in
            var a = a
            a.remember = false
            return a
        }
        extras.remembered = [:]
        return (base, extras, dropped)
    }
}

/// The largest usage an imported session may carry: far beyond any real session, small enough
/// that adding to it can never overflow and every JSON client reads it exactly.
enum UsageCaps {
    static let tokens: Int64 = 1_000_000_000_000_000
    static let turns: Int64 = 1_000_000_000
    /// 10^15 tokens at the dearest default price (75 USD per million output tokens) is 7.5 * 10^10.
    static let costUSD = 1e11

    /// `usage` as a file states it (absent: zero), or `damaged` naming the member at fault.
    static func checked(_ usage: JSON?) throws(SessionError) -> Usage {
        guard let usage, !usage.isNull else { return Usage() }
        guard case .object = usage else { throw ExportFormat.damaged("the session's usage is not an object", field: "session.usage") }
        func count(_ key: String, _ cap: Int64) throws(SessionError) -> Int {
            guard let v = usage[key], !v.isNull else { return 0 }
            guard let i = v.intValue, (0...cap).contains(i) else {
                throw ExportFormat.damaged("usage.\(key) \(JSONCodec.encodeString(v)) is not a whole number from 0 to \(cap)",
                                           field: "session.usage.\(key)")
            }
            return Int(i)
        }
        var out = Usage(inputTokens: try count("inputTokens", tokens), outputTokens: try count("outputTokens", tokens),
                        turns: try count("turns", turns))
        if let v = usage["estimatedCostUSD"], !v.isNull {
            guard let d = v.doubleValue, d.isFinite, d >= 0, d <= costUSD else {
                throw ExportFormat.damaged("usage.estimatedCostUSD \(JSONCodec.encodeString(v)) is not a number from 0 to \(costUSD)",
                                           field: "session.usage.estimatedCostUSD")
            }
            out.estimatedCostUSD = d
        }
        return out
    }
}
