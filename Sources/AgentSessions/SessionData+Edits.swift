import JSON

extension SessionData {
    /// Applies a `del` record (messages deleted: `ids`; ids the session does not show, or that
    /// stand for a compacted run, change nothing) or a `meta` record (`set`: the session
    /// metadata's keys to set, a `null` value removing its key; metadata that is not an object is
    /// replaced by one).
    mutating func applyEdit(_ type: String, _ r: JSON) throws(ReplayFault) {
        switch type {
        case "del":
            guard let ids = r["ids"]?.arrayValue else { throw ReplayFault("a deletion without ids") }
            var gone = Set<String>()
            for v in ids {
                if let mid = v.stringValue, let i = messageIndex[mid], !messages[i].isPlaceholder { gone.insert(mid) }
            }
            guard !gone.isEmpty else { return }
            messages.removeAll { gone.contains($0.id) }
            messageIndex = [:]
            messageIndex.reserveCapacity(messages.count)
            for (i, m) in messages.enumerated() { messageIndex[m.id] = i }
            hasDeletions = true
        case "meta":
            guard case .object(let set)? = r["set"] else { throw ReplayFault("a metadata change without set") }
            metadata = Self.merged(metadata, set)
        default:
            break
        }
    }

    /// `base` (an object, else nothing) with `patch`'s keys set, `null` values removing theirs.
    static func merged(_ base: JSON?, _ patch: JSONObject) -> JSON {
        var o = base?.objectValue ?? JSONObject()
        for (k, v) in patch.members {
            // Not `v.isNull ? nil : v`: that `nil` would be `JSON.null` (see `nonNull`).
            let value: JSON? = v.isNull ? Optional.none : v
            o[k] = value
        }
        return .object(o)
    }
}
