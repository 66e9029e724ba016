#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The default layout of a new workspace, from the seeds: journals for the user and the
/// agent, research, chats, the agent's accumulated context, and the server's private folder.
enum Template {
    static let folders = ["Journal/user", "Journal/agent", "Research", "Chats"]
    static let files: [(String, String)] = [
        ("context.md", """
            # Context

            What the agent has learned about this workspace and its user. The agent appends here;
            you may edit it freely.

            """),
        ("README.txt", """
            This folder is a WorkspaceBridge workspace, shared by you and your agents.

              Journal/user/   your dated notes
              Journal/agent/  the agent's dated observations
              Research/       sources and notes, one folder per topic
              Chats/          conversations, one JSON file each
              context.md      the agent's accumulated knowledge

            The hidden .workspace/ folder belongs to the server (sessions, queues, locks).

            """),
    ]

    /// Lays out the template the first time a root is used (when `.workspace/` is missing);
    /// never overwrites anything that exists. Also removes temp files left by interrupted saves.
    /// Several servers may start on a fresh root at once: a file another one created first is
    /// kept as it is.
    static func layOut(in ws: Workspace) throws(WorkspaceError) {
        let rootDir = try ws.root.openDirectory(.root)
        if Sys.lstat(rootDir.raw, Workspace.privateFolder) == nil {
            for f in folders { _ = try ws.root.makeDirectories(try WorkspacePath(f)) }
            for (name, text) in files where Sys.lstat(rootDir.raw, name) == nil {
                do {
                    _ = try ws.save(try WorkspacePath(name), contents: Array(text.utf8), options: .init(exclusive: true))
                } catch where error.code == .alreadyExists {
                    continue  // another server laid it out a moment ago
                }
            }
            _ = try ws.root.makeDirectories(WorkspacePath(components: [Workspace.privateFolder]))
        }
    }
}

extension Workspace {
    /// Lays out the default template if this root has never been used (see `Template`).
    public static func layOutTemplate(in ws: Workspace) throws(WorkspaceError) {
        try Template.layOut(in: ws)
    }

    /// Whether the file at `path` is a template file nobody has changed (so a migration may
    /// replace it with the user's version instead of keeping both).
    public func isPristineTemplate(_ path: WorkspacePath) -> Bool {
        guard let text = Template.files.first(where: { $0.0 == path.string })?.1,
            let r = try? read(path, maxBytes: 1 << 16)
        else { return false }
        return r.bytes == Array(text.utf8)
    }
}
