/// The names engines use for their own temporary and internal files, and for placeholders.
/// Each rule cites the engine behaviour it mirrors.
enum HiddenNames {
    /// The engine whose internal file `name` is, if any.
    static func engine(of bytes: [UInt8]) -> SyncEngine? {
        let n = NameBytes(bytes)
        // macOS metadata that Finder writes into every folder, whatever keeps it in sync:
        // `.DS_Store` (view settings) and `Icon\r` (a custom folder icon; Dropbox and Nextcloud
        // set one on their roots). Nothing else of the OS is hidden: Thumbs.db, desktop.ini and
        // the like are ordinary files as far as the user can see.
        if n.equals(".DS_Store") || n.equals("Icon\r") { return .folder }
        if isSyncthing(n) { return .syncthing }
        if isNextcloud(n) { return .nextcloud }
        if isDropbox(n) { return .dropbox }
        if isUnison(n) { return .unison }
        if isRclone(n) { return .rclone }
        return nil
    }

    /// A placeholder for a file that is not downloaded yet.
    static func placeholder(_ bytes: [UInt8]) -> SyncArtefact? {
        let n = NameBytes(bytes)
        // iCloud Drive before macOS 14 (Sonoma): an evicted `name` is replaced by the stub
        // `.name.icloud` (`^\.(.+)\.icloud$`, a bplist with NSURLNameKey/NSURLFileSizeKey).
        // Sonoma's dataless files keep their real name and are found by st_flags elsewhere.
        if n.count >= 9, n.hasPrefix("."), n.hasSuffix(".icloud") {
            return .placeholder(.icloud, realName: n.string(1..<n.count - 7))
        }
        // Nextcloud (and ownCloud) desktop client, "suffix" virtual files mode: a file not yet
        // hydrated is an empty `name.nextcloud` (APPLICATION_DOTVIRTUALFILE_SUFFIX), or
        // `name.owncloud` with the ownCloud client.
        for suffix in [".nextcloud", ".owncloud"] where n.count > suffix.utf8.count && n.hasSuffix(suffix) {
            return .placeholder(.nextcloud, realName: n.string(0..<n.count - suffix.utf8.count))
        }
        return nil
    }

    /// Syncthing: `.stfolder` (folder marker, a directory since 1.x), `.stignore` (ignore
    /// patterns), `.stversions` (file versioning), and temp files `.syncthing.<name>.tmp`
    /// (`~syncthing~<name>.tmp` on Windows; lib/fs/tempname.go). Syncthing never propagates
    /// its temp names, which is why our own saves use them (docs/decisions.md).
    private static func isSyncthing(_ n: NameBytes) -> Bool {
        if n.equals(".stfolder") || n.equals(".stignore") || n.equals(".stversions") { return true }
        for prefix in [".syncthing.", "~syncthing~"] where n.count >= 15 && n.hasPrefix(prefix) {
            if n.hasSuffix(".tmp") { return true }
        }
        return false
    }

    /// Nextcloud / ownCloud desktop client (csync_exclude.cpp, propagatedownload.cpp):
    /// - the sync journal `.sync_<12 hex>.db` (`._sync_…` on older clients and where a leading
    ///   `._` is needed), the legacy `.csync_journal.db`, and their SQLite `-wal`, `-shm`,
    ///   `-journal` companions (the client excludes `.sync_*.db*` silently);
    /// - the logs `.owncloudsync.log` / `.nextcloudsync.log` (and rotations: `…log*`);
    /// - downloads in progress `.<name>.~<up to 8 lowercase hex>` (createDownloadTmpFileName).
    private static func isNextcloud(_ n: NameBytes) -> Bool {
        for prefix in [".sync_", "._sync_"] where n.hasPrefix(prefix) {
            let hex = prefix.utf8.count
            if isHex(n, hex..<hex + 12), n.has(".db", at: hex + 12), isSQLiteSuffix(n, from: hex + 15) {
                return true
            }
        }
        if n.hasPrefix(".csync_journal.db"), isSQLiteSuffix(n, from: 17) || n.equals(".csync_journal.db.ctmp") {
            return true
        }
        if n.hasPrefix(".owncloudsync.log") || n.hasPrefix(".nextcloudsync.log") { return true }
        // `.X.~hex`: at least one character of name between the leading dot and `.~`.
        if n.hasPrefix("."), let tilde = n.occurrences(of: ".~").first, tilde >= 2 {
            let hexCount = n.count - tilde - 2
            if (1...8).contains(hexCount), isHex(n, tilde + 2..<n.count) { return true }
        }
        return false
    }

    /// Dropbox: `.dropbox` (the root's identity file), `.dropbox.attr` (extended attributes
    /// store) and `.dropbox.cache` (downloads in progress and deleted files).
    private static func isDropbox(_ n: NameBytes) -> Bool {
        n.equals(".dropbox") || n.equals(".dropbox.attr") || n.equals(".dropbox.cache")
    }

    /// Unison (src/os.ml): transfers go to `.unison.<name>.<hash>.unison.tmp` (tempFilePrefix
    /// `.unison.`), `.#<name>.<n>.unison.tmp` before 2.40; files and folders alike. `.unison`
    /// is Unison's own directory (archives, profiles) when the synced root is a home folder.
    private static func isUnison(_ n: NameBytes) -> Bool {
        if n.equals(".unison") { return true }
        if n.count >= 19, n.hasPrefix(".unison."), n.hasSuffix(".unison.tmp") { return true }
        return n.count >= 13 && n.hasPrefix(".#") && n.hasSuffix(".unison.tmp")
    }

    /// rclone: since 1.63 a copy is written to `<name>.<8 random chars>.partial` and renamed
    /// into place (`--partial-suffix`, unless `--inplace`). `.rclone-bisync` is the marker
    /// file this project uses to declare a bisync root (rclone itself leaves none).
    private static func isRclone(_ n: NameBytes) -> Bool {
        if n.equals(".rclone-bisync") { return true }
        let suffix = ".partial".utf8.count
        guard n.count >= 1 + 1 + 8 + suffix, n.hasSuffix(".partial") else { return false }
        let random = n.count - suffix - 8
        guard n.b[random - 1] == Ascii.dot else { return false }
        return n.b[random..<random + 8].allSatisfy { isAlphanumeric($0) }
    }

    private static func isSQLiteSuffix(_ n: NameBytes, from index: Int) -> Bool {
        index == n.count || ["-wal", "-shm", "-journal"].contains { n.has($0, at: index) && index + $0.utf8.count == n.count }
    }

    private static func isHex(_ n: NameBytes, _ range: Range<Int>) -> Bool {
        guard range.lowerBound >= 0, range.upperBound <= n.count else { return false }
        return n.b[range].allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
    }

    private static func isAlphanumeric(_ c: UInt8) -> Bool {
        (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A)
    }
}
