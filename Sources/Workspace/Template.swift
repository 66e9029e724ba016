#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Which layout a new workspace root gets the first time it is used (`--template`,
/// `initializationOptions.template`). Either way the server's private `.workspace/` is made,
/// and nothing that exists is ever overwritten.
public enum WorkspaceTemplate: String, Sendable, CaseIterable {
    /// Seed 000's agent-native layout: journals for the user and the agent, research, chats,
    /// the agent's accumulated context.
    case `default`
    /// Seed 002's Atome layout: `Projects/` (`.atome` projects), `Exports/` (exported audio),
    /// `Recordings/`, `Templates/` (presets) and a welcome `README.txt`.
    case atome

    var folders: [String] {
        switch self {
        case .default: ["Journal/user", "Journal/agent", "Research", "Chats"]
        case .atome: ["Projects", "Exports", "Recordings", "Templates"]
        }
    }

    var files: [(String, String)] {
        switch self {
        case .default: Template.agentFiles
        case .atome: Template.atomeFiles
        }
    }
}

/// The files of the two layouts, from the seeds.
enum Template {
    static let agentFiles: [(String, String)] = [
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

    static let atomeFiles: [(String, String)] = [
        ("README.txt", """
            Welcome to Atome.

            This folder holds your Atome files. It lives on this computer or in your cloud
            folder (you choose in Storage settings), and you can open it in your file manager.

              Projects/     your projects (.atome files)
              Exports/      exported audio (.wav)
              Recordings/   audio recordings
              Templates/    presets and templates

            The hidden .workspace/ folder belongs to the server (sessions, queues, settings).

            """),
    ]

    /// Every template file, for recognising one nobody has changed.
    static var allFiles: [(String, String)] { WorkspaceTemplate.allCases.flatMap(\.files) }

    /// Lays out `template` the first time a root is used (when `.workspace/` is missing);
    /// never overwrites anything that exists. Several servers may start on a fresh root at
    /// once: a file another one created first is kept as it is.
    static func layOut(in ws: Workspace, template: WorkspaceTemplate) throws(WorkspaceError) {
        let rootDir = try ws.root.openDirectory(.root)
        if Sys.lstat(rootDir.raw, Workspace.privateFolder) == nil {
            for f in template.folders { _ = try ws.root.makeDirectories(try WorkspacePath(f)) }
            for (name, text) in template.files where Sys.lstat(rootDir.raw, name) == nil {
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
    /// Lays out `template` if this root has never been used (see `Template`).
    public static func layOutTemplate(in ws: Workspace, template: WorkspaceTemplate = .default) throws(WorkspaceError) {
        try Template.layOut(in: ws, template: template)
    }

    /// Whether the file at `path` is a file of either template that nobody has changed (so a
    /// migration may replace it with the user's version instead of keeping both).
    public func isPristineTemplate(_ path: WorkspacePath) -> Bool {
        let texts = Template.allFiles.filter { $0.0 == path.string }.map(\.1)
        guard !texts.isEmpty, let r = try? read(path, maxBytes: 1 << 16) else { return false }
        return texts.contains { r.bytes == Array($0.utf8) }
    }
}
