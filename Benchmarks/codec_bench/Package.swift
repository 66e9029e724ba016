// swift-tools-version:6.0
import PackageDescription

/// In-process codec benchmark: the product's JSONCodec, raw jansson and Foundation's
/// JSONSerialization on the same messages. Built by Benchmarks/run.sh with
/// `swift build -c release --package-path Benchmarks/codec_bench --scratch-path .build-bench`.
let package = Package(
    name: "codec_bench",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "WorkspaceBridge", path: "../.."),
    ],
    targets: [
        .executableTarget(
            name: "codec_bench",
            dependencies: [.product(name: "JSON", package: "WorkspaceBridge")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
