/// A program that keeps a folder in sync with other devices, as far as the names it leaves
/// on disk let us tell. `folder` means no engine was recognised: an ordinary folder.
public enum SyncEngine: String, Sendable, CaseIterable {
    case icloud, syncthing, nextcloud, dropbox, unison, rclone, folder
}

/// What one directory entry's name says about it, given the sync engines' naming conventions.
public enum SyncArtefact: Sendable, Equatable {
    /// An ordinary entry.
    case none
    /// An engine's temporary or internal file or folder (or OS metadata, as `.folder`): never shown.
    case hidden(SyncEngine)
    /// Stands for a file that is not downloaded yet, whose real name is `realName`.
    case placeholder(SyncEngine, realName: String)
    /// A conflict copy of `originalName` (in the same folder), made on `device` when the name says so.
    case conflictCopy(SyncEngine, originalName: String, device: String?)
}

extension SyncArtefact {
    /// Whether the name it stands for is `.` or `..` (`...icloud`, `.. (conflict_on_…)`): no
    /// file can have that name, so such an entry is an ordinary one.
    var standsForDotEntry: Bool {
        switch self {
        case .placeholder(_, let name), .conflictCopy(_, let name, _): name == "." || name == ".."
        case .none, .hidden: false
        }
    }
}

/// Recognises the files that sync engines leave in the folders they manage (DESIGN.md,
/// "Sync-engine artefacts"). Everything here is pure except `detectEngine`, which only reads
/// the names at the top of a folder.
public enum SyncArtefacts {
    /// Classifies one base name (no "/"), for every engine at once (names do not collide across
    /// engines). Order: hidden, then placeholder, then conflict copy; a name that merely
    /// resembles a pattern (no date, wrong digits, wrong suffix) is `.none`, and so is anything
    /// that cannot be a base name: empty, containing "/" or NUL, or over 1024 bytes (file systems
    /// allow 255 bytes, or 255 UTF-16 units on Apple's). A placeholder or conflict copy that
    /// would stand for `.` or `..` is `.none` too.
    public static func classify(_ name: String) -> SyncArtefact {
        let bytes = Array(name.utf8)
        if bytes.isEmpty || bytes.count > 1024 || bytes.contains(Ascii.slash) || bytes.contains(0) {
            return .none
        }
        if let engine = HiddenNames.engine(of: bytes) { return .hidden(engine) }
        if let placeholder = HiddenNames.placeholder(bytes), !placeholder.standsForDotEntry { return placeholder }
        if let conflict = ConflictNames.classify(bytes), !conflict.standsForDotEntry { return conflict }
        return .none
    }

    /// Detects the engine keeping `rootPath` in sync from the marker entries at its top level,
    /// or from its path: icloud when it runs through `/Library/Mobile Documents/`; syncthing:
    /// `.stfolder`; nextcloud: `.sync_*.db`, `._sync_*.db`, `.owncloudsync.log`,
    /// `.nextcloudsync.log`; dropbox: `.dropbox`, `.dropbox.cache`; unison: `.unison` or a
    /// `.unison.*.unison.tmp` entry; rclone: `.rclone-bisync`, `RCLONE_TEST` or a bisync
    /// conflict copy (`*..path1`, `*..path2`, `*.conflictN`); otherwise folder. The first match
    /// in that order wins (see `EngineDetection`). Only lstat and the directory listing are
    /// used: a root that is a link is not followed, and an unreadable one answers `.folder`.
    public static func detectEngine(rootPath: String) -> SyncEngine {
        EngineDetection.detect(rootPath: rootPath)
    }

    /// Parses an iCloud placeholder stub (`.name.icloud`): a binary property list ("bplist00")
    /// whose top object is a dictionary with `NSURLNameKey` (string) and `NSURLFileSizeKey`
    /// (integer). Returns nil for anything else, including a name that is empty, `.`, `..` or
    /// contains "/" or NUL (a stub is untrusted input that arrives through sync), a negative
    /// size, and inputs over 1 MiB (real stubs are a few hundred bytes).
    public static func parseICloudStub(_ bytes: [UInt8]) -> (name: String, size: Int64)? {
        guard bytes.count <= 1 << 20,
              case .dictionary(let top)? = BinaryPropertyList.parse(bytes),
              case .string(let name)? = top["NSURLNameKey"],
              case .integer(let size)? = top["NSURLFileSizeKey"],
              size >= 0, !name.isEmpty, name != ".", name != "..",
              !name.utf8.contains(Ascii.slash), !name.utf8.contains(0)
        else { return nil }
        return (name, size)
    }
}
