// swift-tools-version:6.0
import PackageDescription

/// WorkspaceBridge: a workspace-and-agent-session core served over stdio JSON-RPC 2.0.
///
/// Layers (arrows point down only): workspace-bridge → BridgeServer → JSONRPC → JSON → CJansson.
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
        .target(name: "CWorkspaceShims", linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
        .target(name: "JSON", dependencies: ["CJansson"], swiftSettings: strict),
        .target(
            name: "FileWatching",
            dependencies: ["CWorkspaceShims"],
            swiftSettings: strict
        ),
        .target(
            name: "Workspace",
            dependencies: ["CWorkspaceShims"],
            swiftSettings: strict
        ),
        .target(
            name: "JSONRPC",
            dependencies: ["JSON", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strict
        ),
        .target(
            name: "BridgeServer",
            dependencies: ["JSON", "JSONRPC", "Workspace", "Storage", "AgentSessions", "FileWatching", "CWorkspaceShims", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strict
        ),
        .target(
            name: "Storage",
            dependencies: ["Workspace", "JSON", "CWorkspaceShims"],
            swiftSettings: strict
        ),
        .target(
            name: "AgentSessions",
            dependencies: ["JSON", "CWorkspaceShims"],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "workspace-bridge",
            dependencies: [
                "BridgeServer", "JSONRPC", "Storage", "Workspace", "CWorkspaceShims",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .testTarget(name: "JSONTests", dependencies: ["JSON"], swiftSettings: strict),
        .testTarget(name: "JSONRPCTests", dependencies: ["JSONRPC", "JSON"], swiftSettings: strict),
        .testTarget(name: "FileWatchingTests", dependencies: ["FileWatching"], swiftSettings: strict),
        .testTarget(name: "WorkspaceTests", dependencies: ["Workspace"], swiftSettings: strict),
        .testTarget(name: "AgentSessionsTests", dependencies: ["AgentSessions", "JSON"], swiftSettings: strict),
        .testTarget(name: "StorageTests", dependencies: ["Storage", "Workspace", "JSON"], swiftSettings: strict),
        .testTarget(name: "SettingsTests", dependencies: ["Storage", "JSON"], swiftSettings: strict),
        .testTarget(name: "BridgeServerTests", dependencies: ["BridgeServer", "JSONRPC", "JSON"], swiftSettings: strict),
        .testTarget(name: "WorkspaceBridgeCommandTests", dependencies: ["workspace-bridge"], swiftSettings: strict),
        // Fuzzing (Tests/Fuzz/README.md): the targets, one libFuzzer driver per target (a replayer
        // when built without Tests/Fuzz/run.sh), and the test that replays corpus and regressions.
        .target(
            name: "FuzzTargets",
            dependencies: ["JSON", "JSONRPC", "Workspace", "AgentSessions"],
            path: "Tests/Fuzz/Targets",
            swiftSettings: strict
        ),
    ] + ["FuzzFraming", "FuzzJSON", "FuzzPaths", "FuzzJournal", "FuzzArtefactNames"].map { name in
        .executableTarget(name: name, dependencies: ["FuzzTargets"], path: "Tests/Fuzz/Entry/\(name)", swiftSettings: strict)
    } + [
        .testTarget(name: "FuzzReplayTests", dependencies: ["FuzzTargets"], swiftSettings: strict),
    ],
    swiftLanguageModes: [.v6]
)
