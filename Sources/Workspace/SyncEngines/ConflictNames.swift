/// Conflict copies: each engine renames the losing side of a conflict with a tag of its own.
/// Every tag is matched whole (dates, digits, closing parenthesis); a name that only resembles
/// one stays `.none`.
enum ConflictNames {
    static func classify(_ bytes: [UInt8]) -> SyncArtefact? {
        let n = NameBytes(bytes)
        // rclone first: its suffix goes on the whole name, outside any other engine's tag.
        return rclone(n) ?? syncthing(n) ?? nextcloud(n) ?? dropbox(n) ?? unison(n)
    }

    /// rclone bisync: before 1.66 both sides of a conflict became `name..path1` and
    /// `name..path2`; since 1.66 the default `--conflict-suffix conflict` gives `name.conflict1`,
    /// `name.conflict2` (higher numbers when those exist), or `base.conflict1.ext` with
    /// `--suffix-keep-extension` (path.Ext: the last extension).
    private static func rclone(_ n: NameBytes) -> SyncArtefact? {
        if n.count > 7, n.hasSuffix("..path1") || n.hasSuffix("..path2") {
            return copy(.rclone, n.string(0..<n.count - 7))
        }
        for tag in n.occurrences(of: ".conflict") where tag > 0 {
            guard let end = n.digitRun(at: tag + 9) else { continue }
            if end == n.count { return copy(.rclone, n.string(0..<tag)) }
            if n.b[end] == Ascii.dot, end + 1 < n.count, n.isLastExtension(from: end) {
                return copy(.rclone, n.removing(tag..<end))
            }
        }
        return nil
    }

    /// Syncthing (lib/model/folder_sendrecv.go, conflictName): the extension (Go's
    /// filepath.Ext, the last one) stays last: `name.sync-conflict-YYYYMMDD-HHMMSS-DEVICE.ext`,
    /// DEVICE being the 7-character short id (base32 A-Z2-7) of the device that made the losing
    /// change. Versions before 0.14 wrote no device; an unknown device (id 0) leaves a bare
    /// dash. `.bashrc` has extension `.bashrc`, hence `.sync-conflict-…-DEVICE.bashrc`.
    private static func syncthing(_ n: NameBytes) -> SyncArtefact? {
        for tag in n.occurrences(of: ".sync-conflict-") {
            let stamp = tag + 15
            guard n.digits(at: stamp, count: 8), n.has("-", at: stamp + 8), n.digits(at: stamp + 9, count: 6)
            else { continue }
            var rest = stamp + 15
            var device: String?
            if n.has("-", at: rest) {
                if rest + 8 <= n.count, n.b[rest + 1..<rest + 8].allSatisfy(isBase32) {
                    device = n.string(rest + 1..<rest + 8)
                    rest += 8
                } else if rest + 1 == n.count || n.b[rest + 1] == Ascii.dot {
                    rest += 1
                } else {
                    continue
                }
            }
            guard n.isLastExtension(from: rest), tag > 0 || rest < n.count else { continue }
            return .conflictCopy(.syncthing, originalName: n.removing(tag..<rest), device: device)
        }
        return nil
    }

    /// Nextcloud / ownCloud desktop client (common/utility.cpp): the tag goes before the last
    /// dot (at the end when the only dot leads the name):
    /// - `name (conflicted copy [USER ]YYYY-MM-DD HHMMSS).ext` since 2.5; USER is the
    ///   account's display name with parentheses replaced by `_`, reported as the device;
    /// - `name (case clash from YYYY-MM-DD HHMMSS).ext` for names differing only in case;
    /// - `name_conflict-YYYYMMDD-HHMMSS.ext` before 2.5.
    /// As in conflictFileBaseNameFromPattern, the rightmost tag is the one stripped.
    private static func nextcloud(_ n: NameBytes) -> SyncArtefact? {
        for tag in n.occurrences(of: " (conflicted copy ") where tag > 0 {
            let inner = tag + 18
            guard let close = n.b[inner...].firstIndex(of: Ascii.close), close - inner >= 17,
                  n.isLastExtension(from: close + 1), stampWithTime(n, at: close - 17) else { continue }
            var device: String?
            if close - inner > 17 {
                let userEnd = close - 18
                guard userEnd > inner, n.b[userEnd] == Ascii.space, !n.b[inner..<userEnd].contains(Ascii.open)
                else { continue }
                device = n.string(inner..<userEnd)
            }
            return .conflictCopy(.nextcloud, originalName: n.removing(tag..<close + 1), device: device)
        }
        for tag in n.occurrences(of: " (case clash from ") where tag > 0 {
            let stamp = tag + 18
            if stampWithTime(n, at: stamp), n.has(")", at: stamp + 17), n.isLastExtension(from: stamp + 18) {
                return copy(.nextcloud, n.removing(tag..<stamp + 18))
            }
        }
        for tag in n.occurrences(of: "_conflict-") where tag > 0 {
            let stamp = tag + 10
            if n.digits(at: stamp, count: 8), n.has("-", at: stamp + 8), n.digits(at: stamp + 9, count: 6),
               n.isLastExtension(from: stamp + 15) {
                return copy(.nextcloud, n.removing(tag..<stamp + 15))
            }
        }
        return nil
    }

    /// Dropbox, before the extension: `name (DEVICE's conflicted copy YYYY-MM-DD).ext`, with
    /// ` (N)` (older clients: ` N`) inside the parenthesis when that name is taken. DEVICE is
    /// the user's or computer's name. Also `name (Case Conflict).ext`,
    /// `name (Selective Sync Conflict).ext` and `name (Unicode Encoding Conflict).ext`, which
    /// carry no device.
    private static func dropbox(_ n: NameBytes) -> SyncArtefact? {
        for marker in n.occurrences(of: "'s conflicted copy ") where marker > 0 {
            guard let date = n.isoDate(at: marker + 19), let close = counterThenClose(n, at: date),
                  close == n.count || n.b[close] == Ascii.dot,
                  let open = openingParen(n, before: marker) else { continue }
            return .conflictCopy(.dropbox, originalName: n.removing(open..<close),
                                 device: n.string(open + 2..<marker))
        }
        for kind in [" (Case Conflict", " (Selective Sync Conflict", " (Unicode Encoding Conflict"] {
            for tag in n.occurrences(of: kind) where tag > 0 {
                guard let close = counterThenClose(n, at: tag + kind.utf8.count),
                      close == n.count || n.b[close] == Ascii.dot else { continue }
                return copy(.dropbox, n.removing(tag..<close))
            }
        }
        return nil
    }

    /// Unison with `copyonconflict` (src/files.ml, finishCopy; Path.addToFinalName puts it
    /// before the last dot, even a leading one): `name (conflict_on_YYYY-MM-DD).ext`,
    /// `name (conflict #N_on_YYYY-MM-DD).ext` when taken, `…_was_deleted)` when the other side
    /// deleted the file. `.bashrc` becomes ` (conflict_on_YYYY-MM-DD).bashrc`.
    private static func unison(_ n: NameBytes) -> SyncArtefact? {
        for tag in n.occurrences(of: " (conflict") {
            var p = tag + 10
            if n.has(" #", at: p) {
                guard let end = n.digitRun(at: p + 2) else { continue }
                p = end
            }
            guard n.has("_on_", at: p), var end = n.isoDate(at: p + 4) else { continue }
            if n.has("_was_deleted", at: end) { end += 12 }
            guard n.has(")", at: end), n.isLastExtension(from: end + 1), tag > 0 || end + 1 < n.count
            else { continue }
            return copy(.unison, n.removing(tag..<end + 1))
        }
        return nil
    }

    // MARK: - Helpers

    private static func copy(_ engine: SyncEngine, _ original: String) -> SyncArtefact? {
        original.isEmpty ? nil : .conflictCopy(engine, originalName: original, device: nil)
    }

    /// `YYYY-MM-DD HHMMSS` at `index`.
    private static func stampWithTime(_ n: NameBytes, at index: Int) -> Bool {
        guard let end = n.isoDate(at: index) else { return false }
        return n.has(" ", at: end) && n.digits(at: end + 1, count: 6)
    }

    /// Optional ` (N)` or ` N`, then `)`; returns the index after the `)`.
    private static func counterThenClose(_ n: NameBytes, at index: Int) -> Int? {
        var p = index
        if n.has(" (", at: p), let end = n.digitRun(at: p + 2), n.has(")", at: end) {
            p = end + 1
        } else if n.has(" ", at: p), let end = n.digitRun(at: p + 1) {
            p = end
        }
        return n.has(")", at: p) ? p + 1 : nil
    }

    /// The ` (` that opens a Dropbox tag whose `'s` is at `marker`: the nearest one that leaves
    /// a non-empty device name with balanced parentheses and a non-empty name before it.
    private static func openingParen(_ n: NameBytes, before marker: Int) -> Int? {
        var open = marker - 3
        while open > 0 {
            if n.b[open] == Ascii.space, n.b[open + 1] == Ascii.open {
                let device = n.b[open + 2..<marker]
                if device.filter({ $0 == Ascii.open }).count == device.filter({ $0 == Ascii.close }).count {
                    return open
                }
            }
            open -= 1
        }
        return nil
    }

    private static func isBase32(_ c: UInt8) -> Bool {
        (c >= 0x41 && c <= 0x5A) || (c >= 0x32 && c <= 0x37)
    }
}
