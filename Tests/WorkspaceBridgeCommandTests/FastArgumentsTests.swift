import ArgumentParser
import Testing
@testable import workspace_bridge

/// What swift-argument-parser makes of a command line, in `FastArguments`' terms; nil when
/// it refuses the line (or answers it itself: help, version).
private func parsedByArgumentParser(_ args: [String]) -> FastArguments.Invocation? {
    guard let command = try? WorkspaceBridgeCommand.parseAsRoot(args) else { return nil }
    if let serve = command as? Serve { return .init(arguments: serve.options.arguments, mcp: false, session: nil) }
    if let mcp = command as? MCP { return .init(arguments: mcp.options.arguments, mcp: true, session: mcp.session) }
    return nil
}

@Suite("Fast command-line reading")
struct FastArgumentsTests {
    static let usual: [[String]] = [
        [],
        ["serve"],
        ["mcp"],
        ["--enable-debug-methods"],
        ["--local-root", "/w"],
        ["--local-root=/w/with space"],
        ["serve", "--framing", "lsp", "--log-level", "debug", "--max-message-bytes", "1024"],
        ["--framing=ndjson", "--log-level=trace", "--log-file", "/tmp/x.log"],
        ["mcp", "--session", "sess_1", "--local-root", "/w", "--config-dir", "/c"],
        ["mcp", "--framing", "lsp"],
        ["--cloud-root", "/c", "--icloud-container", "iCloud.com.example", "--output-stall-timeout", "0"],
        ["--idle-release-after", "0.25", "--output-stall-timeout", "5", "--enable-debug-methods"],
        ["--idle-release-after=0"],
        ["--exit-grace", "2.5"], ["--exit-grace=0"],
    ]

    @Test("reads the usual command lines exactly as swift-argument-parser does", arguments: usual)
    func agreesWithArgumentParser(args: [String]) throws {
        let fast = try #require(FastArguments.parse(args))
        #expect(fast == parsedByArgumentParser(args))
    }

    static let leftToArgumentParser: [[String]] = [
        ["--help"], ["-h"], ["--version"], ["serve", "--help"], ["help"],
        ["--max-message-bytes", "0"], ["--output-stall-timeout", "-1"], ["--idle-release-after", "nan"],
        ["--idle-release-after", "-2"], ["--framing", "xml"], ["--log-level", "loud"], ["--max-message-bytes", "lots"],
        ["--exit-grace", "-1"], ["--exit-grace", "nan"],
        ["--local-root"], ["--local-root", "/a", "--local-root", "/b"], ["--session", "s"], ["--unknown"],
        ["--enable-debug-methods=yes"], ["unknown-subcommand"], ["-v"], ["--local-root", "-x"],
    ]

    @Test("leaves every other command line to swift-argument-parser", arguments: leftToArgumentParser)
    func fallsBack(args: [String]) {
        #expect(FastArguments.parse(args) == nil)
    }

    @Test("the defaults are swift-argument-parser's")
    func defaults() throws {
        let fast = try #require(FastArguments.parse([]))
        #expect(fast.arguments == ServeArguments())
        #expect(parsedByArgumentParser([])?.arguments == ServeArguments())
    }
}
