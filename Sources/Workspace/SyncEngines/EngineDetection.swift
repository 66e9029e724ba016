#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Which engine keeps a folder in sync, judged from the marker entries each one keeps at the
/// top of the folders it manages. Only the top level is read, names only, and the root is
/// opened with O_NOFOLLOW: a root that is a link answers `.folder`.
///
/// Markers, checked in this order (the first engine found wins when several coexist):
/// - icloud: the path runs through `/Library/Mobile Documents/` (iCloud Drive's container);
/// - syncthing: `.stfolder` (file or folder: Syncthing refuses to sync a folder without it);
/// - nextcloud: the client's journal `.sync_<hex>.db` / `._sync_<hex>.db` (or the legacy
///   `.csync_journal.db`), or its log `.owncloudsync.log` / `.nextcloudsync.log`;
/// - dropbox: `.dropbox` or `.dropbox.cache`;
/// - unison: `.unison` (file or folder), or a Unison temp entry `.unison.*.unison.tmp`;
/// - rclone: `.rclone-bisync` (a marker this project's setup writes, since bisync keeps its
///   state outside the tree), `RCLONE_TEST` (bisync's `--check-access` file, default name), or
///   any bisync conflict copy at the top level (`name..path1`, `name..path2`, `name.conflictN`).
enum EngineDetection {
    static func detect(rootPath: String) -> SyncEngine {
        let path = rootPath.hasSuffix("/") ? rootPath : rootPath + "/"
        if path.contains("/Library/Mobile Documents/") { return .icloud }
        guard let names = topLevelNames(rootPath) else { return .folder }
        var found = Set<SyncEngine>()
        for name in names {
            if let engine = marker(name) { found.insert(engine) }
        }
        let precedence: [SyncEngine] = [.syncthing, .nextcloud, .dropbox, .unison, .rclone]
        return precedence.first { found.contains($0) } ?? .folder
    }

    /// The engine `name` is a root marker of, if any.
    static func marker(_ name: String) -> SyncEngine? {
        switch name {
        case ".stfolder": return .syncthing
        case ".owncloudsync.log", ".nextcloudsync.log", ".csync_journal.db": return .nextcloud
        case ".dropbox", ".dropbox.cache": return .dropbox
        case ".unison": return .unison
        case ".rclone-bisync", "RCLONE_TEST": return .rclone
        default: break
        }
        switch SyncArtefacts.classify(name) {
        case .hidden(.nextcloud):
            let n = NameBytes(Array(name.utf8))
            return (n.hasPrefix(".sync_") || n.hasPrefix("._sync_")) && n.hasSuffix(".db") ? .nextcloud : nil
        case .hidden(.unison):
            return name.hasPrefix(".unison.") ? .unison : nil
        case .conflictCopy(.rclone, _, _):
            return .rclone
        default:
            return nil
        }
    }

    /// The names at the top of `path`, or nil when it is not a directory we may read (a link
    /// to one included).
    private static func topLevelNames(_ path: String) -> [String]? {
        var st = stat()
        guard lstat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR else { return nil }
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        guard let dir = fdopendir(fd) else {
            close(fd)
            return nil
        }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: &entry.pointee.d_name) { p in
                p.withMemoryRebound(to: CChar.self, capacity: MemoryLayout.size(ofValue: entry.pointee.d_name)) {
                    String(cString: $0)
                }
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}
