// swift-tools-version:6.0
import PackageDescription

/// WorkspaceBridge: a workspace-and-agent-session core served over stdio JSON-RPC 2.0.
///
/// Every target and what it may depend on (arrows point down only). The domain targets
/// (Workspace, Storage, AgentSessions, FileWatching) and SystemSupport know nothing of JSON-RPC:
/// their typed errors become protocol errors in BridgeServer only.
///
///     workspace-bridge  the executable: command line → ServerConfiguration → server process; composes the
///                       faces (BridgeServer's LSP-style core plus MCPFace) into one BridgeServer per connection
///       → BridgeServer, MCPFace, ACPFace, AgentSessions, SessionHub, JSONRPC, JSON, Storage, Workspace, SystemSupport, CWorkspaceShims, ArgumentParser, Logging
///     MCPFace           the MCP face, both eras: a Face (its tables, its per-connection state, its conventions)
///                       over BridgeServer's face-neutral Services; BridgeServer never imports it (nor any face)
///       → BridgeServer, JSONRPC, JSON, Workspace, Storage, AgentSessions, FileWatching, SystemSupport, CWorkspaceShims, Logging
///     BridgeServer      the router and the Face seam, the LSP-style face: each method declared once
///                       (MethodDeclaration: typed params, schedule, handler, result), the face-neutral Services
///                       handlers get, the tools (a method plus a rename); the one place domain errors become
///                       protocol errors (for every face). What faces use of it is `package`, not public.
///       → JSONRPC, JSON, Workspace, Storage, AgentSessions, SessionErrorData, FileWatching, SystemSupport, CWorkspaceShims, Logging
///     ACPFace           the ACP face (`workspace-bridge acp`): a proxy between an ACP editor and an ACP agent
///                       that journals every session in the store; two JSONRPC Peers (editor side, agent side)
///                       (Workspace: the agent's fs/* served from the sandbox; CWorkspaceShims: the agent tied to the proxy's life)
///       → AgentSessions, SessionErrorData, JSON, JSONRPC, Workspace, SystemSupport, CWorkspaceShims, Logging
///     SessionErrorData  a session error's `error.data` from its typed details: the one mapping every face sends
///       → AgentSessions, JSON, SystemSupport
///     JSONRPC           framing, the connection, scheduling, the worker pool, typed params, the symmetric Peer;
///                       knows no method, no MCP and no ACP (a face's differences come in as Connection.Conventions)
///       → JSON, SystemSupport, Logging
///     Storage           local/cloud storage choice, migration, synced settings
///       → Workspace, JSON, SystemSupport, CWorkspaceShims
///     SessionHub        the session hub on PostgreSQL (`--hub`): the libpq connection, the schema, the outbox
///                       and its drainer; the store's replica (AgentSessions' SessionReplica)
///       → CLibPQ, AgentSessions, JSON, SystemSupport, CWorkspaceShims
///     AgentSessions     session journals, queue, leases
///       → JSON, SystemSupport, CWorkspaceShims
///     Workspace         files under one root: sandboxed paths, read/write/list/search
///       → SystemSupport, CWorkspaceShims
///     FileWatching      change events (inotify, FSEvents)
///       → SystemSupport, CWorkspaceShims
///     JSON              jansson values and text
///       → CJansson
///     SystemSupport     the low-level helpers, once: threads, clocks, stat times, timestamps, read/write loops,
///                       bounded whole-file reads (FileCap), process identity, SHA-256, the text matcher
///                       searchFiles and session/search share (TextMatcher, its regular expressions on PCRE2)
///       → CWorkspaceShims, CPCRE2 (and the C library, Dispatch and Synchronization)
///     CWorkspaceShims   C shims for system calls Swift cannot reach (openat2, renameat2, pidfd, SHA-256, idle memory,
///                       a child tied to its parent's life)
///     CJansson          the system jansson library
///     CLibPQ            the system libpq (PostgreSQL's C client)
///     CPCRE2            the system PCRE2 library (8-bit), the engine of user regular expressions
///
/// FuzzTargets (Tests/Fuzz) → JSON, JSONRPC, Workspace, AgentSessions, SystemSupport, Logging; each test target tests its namesake
/// (BridgeServerTests also checks the method declarations against schema/openrpc.json).
/// The picture, and one saveFile walked through these targets: docs/architecture.md.
let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "WorkspaceBridge",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "workspace-bridge", targets: ["workspace-bridge"]),
        .library(name: "JSON", targets: ["JSON"]),
        .library(name: "JSONRPC", targets: ["JSONRPC"]),
        .library(name: "BridgeServer", targets: ["BridgeServer"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        .systemLibrary(
            name: "CJansson",
            pkgConfig: "jansson",
            providers: [.apt(["libjansson-dev"]), .brew(["jansson"])]
        ),
        .systemLibrary(
            name: "CLibPQ",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"]), .brew(["libpq"])]
        ),
        .systemLibrary(
            name: "CPCRE2",
            pkgConfig: "libpcre2-8",
            providers: [.apt(["libpcre2-dev"]), .brew(["pcre2"])]
        ),
        .target(name: "CWorkspaceShims", linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
        .target(name: "SystemSupport", dependencies: ["CWorkspaceShims", "CPCRE2"], swiftSettings: strict),
        .target(name: "JSON", dependencies: ["CJansson"], swiftSettings: strict),
        .target(
            name: "FileWatching",
            dependencies: ["SystemSupport", "CWorkspaceShims"],
            swiftSettings: strict
        ),
        .target(
            name: "Workspace",
            dependencies: ["SystemSupport", "CWorkspaceShims"],
            swiftSettings: strict
        ),
        .target(
            name: "JSONRPC",
            dependencies: ["JSON", "SystemSupport", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strict
        ),
        .target(
            name: "BridgeServer",
            dependencies: ["JSON", "JSONRPC", "Workspace", "Storage", "AgentSessions", "SessionErrorData", "FileWatching", "SystemSupport", "CWorkspaceShims", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strict
        ),
        .target(
            name: "MCPFace",
            dependencies: ["BridgeServer", "JSON", "JSONRPC", "Workspace", "Storage", "AgentSessions", "FileWatching", "SystemSupport", "CWorkspaceShims", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strict
        ),
        .target(
            name: "Storage",
            dependencies: ["Workspace", "JSON", "SystemSupport", "CWorkspaceShims"],
            swiftSettings: strict
        ),
        .target(
            name: "AgentSessions",
            dependencies: ["JSON", "SystemSupport", "CWorkspaceShims"],
            swiftSettings: strict
        ),
        .target(
            name: "SessionHub",
            dependencies: ["CLibPQ", "AgentSessions", "JSON", "SystemSupport", "CWorkspaceShims"],
            swiftSettings: strict
        ),
        .target(
            name: "SessionErrorData",
            dependencies: ["AgentSessions", "JSON", "SystemSupport"],
            swiftSettings: strict
        ),
        .target(
            name: "ACPFace",
            dependencies: ["AgentSessions", "SessionErrorData", "JSON", "JSONRPC", "Workspace", "SystemSupport", "CWorkspaceShims", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "workspace-bridge",
            dependencies: [
                "BridgeServer", "MCPFace", "ACPFace", "AgentSessions", "JSON", "SessionHub", "JSONRPC", "Storage", "Workspace", "SystemSupport", "CWorkspaceShims",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .testTarget(name: "SystemSupportTests", dependencies: ["SystemSupport"], swiftSettings: strict),
        .testTarget(name: "JSONTests", dependencies: ["JSON"], swiftSettings: strict),
        .testTarget(name: "JSONRPCTests", dependencies: ["JSONRPC", "JSON", "SystemSupport"], swiftSettings: strict),
        .testTarget(name: "FileWatchingTests", dependencies: ["FileWatching", "SystemSupport"], swiftSettings: strict),
        .testTarget(name: "WorkspaceTests", dependencies: ["Workspace"], swiftSettings: strict),
        .testTarget(name: "AgentSessionsTests", dependencies: ["AgentSessions", "JSON", "SystemSupport"], swiftSettings: strict),
        .testTarget(name: "StorageTests", dependencies: ["Storage", "Workspace", "JSON"], swiftSettings: strict),
        .testTarget(name: "SettingsTests", dependencies: ["Storage", "JSON"], swiftSettings: strict),
        .testTarget(name: "ACPFaceTests", dependencies: ["ACPFace", "AgentSessions", "JSON"], swiftSettings: strict),
        .testTarget(name: "BridgeServerTests", dependencies: ["BridgeServer", "MCPFace", "JSONRPC", "JSON"], swiftSettings: strict),
        .testTarget(name: "WorkspaceBridgeCommandTests", dependencies: ["workspace-bridge", "BridgeServer", "JSONRPC", "Workspace"], swiftSettings: strict),
        // Fuzzing (Tests/Fuzz/README.md): the targets, one libFuzzer driver per target (a replayer
        // when built without Tests/Fuzz/run.sh), and the test that replays corpus and regressions.
        .target(
            name: "FuzzTargets",
            dependencies: ["JSON", "JSONRPC", "Workspace", "AgentSessions", "SystemSupport", .product(name: "Logging", package: "swift-log")],
            path: "Tests/Fuzz/Targets",
            swiftSettings: strict
        ),
    ] + ["FuzzFraming", "FuzzJSON", "FuzzPaths", "FuzzJournal", "FuzzArtefactNames", "FuzzPeer"].map { name in
        .executableTarget(name: name, dependencies: ["FuzzTargets"], path: "Tests/Fuzz/Entry/\(name)", swiftSettings: strict)
    } + [
        .testTarget(name: "FuzzReplayTests", dependencies: ["FuzzTargets"], swiftSettings: strict),
    ],
    swiftLanguageModes: [.v6]
)
