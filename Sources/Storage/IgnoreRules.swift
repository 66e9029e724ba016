#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CWorkspaceShims
import SystemSupport
import Workspace

/// Keeps sync engines away from the server's staging folder: Syncthing through `.stignore`,
/// Nextcloud through `.sync-exclude.lst`, Dropbox through its ignore attribute, iCloud through
/// the `.nosync` suffix the folder already has.
enum IgnoreRules {
    static let stagingPattern = "/" + Workspace.stagingFolder

    static func protectStaging(in ws: Workspace) {
        let root = ws.rootPath
        switch SyncArtefacts.detectEngine(rootPath: root) {
        case .syncthing: appendLine(stagingPattern, to: root + "/.stignore")
        case .nextcloud: appendLine(stagingPattern, to: root + "/.sync-exclude.lst")
        case .dropbox:
            let dir = root + "/" + Workspace.stagingFolder
            mkdir(dir, 0o755)
            _ = wb_mark_dropbox_ignored(dir)
        default: break
        }
    }

    /// Appends `line` to a text file unless a line equal to it is already there (a file over
    /// `FileCap.ignoreList` is not read: the line is appended unchecked, a harmless repeat).
    static func appendLine(_ line: String, to path: String) {
        var startsLine = true  // whether the file ends with a newline (or is empty)
        switch BoundedFile.read(path, .ignoreList) {
        case .bytes(let existing):
            if existing.split(separator: 10).contains(where: { String(decoding: $0, as: UTF8.self) == line }) { return }
            startsLine = existing.isEmpty || existing.last == 10
        case .absent: break
        case .ignored, .failed: startsLine = false
        }
        let w = Sys.openRegularHost(path, flags: O_WRONLY | O_CREAT | O_APPEND, mode: 0o644)
        guard w >= 0 else { return }
        let text = (startsLine ? "" : "\n") + line + "\n"
        _ = text.withCString { write(w, $0, strlen($0)) }
        _ = fsync(w)
        close(w)
    }
}
