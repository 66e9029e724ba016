import ArgumentParser
import BridgeServer
import JSONRPC
import Testing
import Workspace
@testable import workspace_bridge

/// The configuration a command line starts the server with; nil for `--help` and the like.
private func configuration(_ args: [String]) throws -> ServerConfiguration? {
    let command = try WorkspaceBridgeCommand.parseAsRoot(args)
    if let serve = command as? Serve { return serve.options.configuration() }
    if let mcp = command as? MCP { return mcp.options.configuration(mcp: true, session: mcp.session) }
    return nil
}

private func parseError(_ args: [String]) -> (any Error)? {
    do { _ = try WorkspaceBridgeCommand.parseAsRoot(args); return nil } catch { return error }
}

@Suite("Command line")
struct CommandLineTests {
    @Test("no options: the documented defaults")
    func defaults() throws {
        let c = try #require(try configuration([]))
        #expect(c == ServerConfiguration())
        #expect(c.transport.framing == .auto && c.transport.logLevel == .info && c.transport.maxMessageBytes == 64 << 20)
        #expect(c.transport.outputStallTimeout == .seconds(60) && c.transport.idleReleaseAfter == .seconds(1))
        #expect(try configuration(["serve"]) == c)
    }

    @Test("every option reaches the configuration, in both spellings")
    func everyOption() throws {
        let c = try #require(try configuration([
            "serve", "--local-root", "/w", "--cloud-root=/c", "--config-dir", "/cfg", "--framing", "lsp",
            "--max-message-bytes", "1024", "--log-level=debug", "--log-file", "/tmp/x.log",
            "--output-stall-timeout", "5", "--idle-release-after", "0.25", "--enable-debug-methods",
        ]))
        #expect(c.localRoot == "/w" && c.cloudRoot == "/c" && c.configDirectory == "/cfg")
        #expect(c.transport.framing == .lsp && c.transport.maxMessageBytes == 1024 && c.transport.logLevel == .debug && c.transport.logFile == "/tmp/x.log")
        #expect(c.transport.outputStallTimeout == .seconds(5) && c.transport.idleReleaseAfter == .milliseconds(250))
        #expect(c.enableDebugMethods && !c.forceMCP && c.mcpSession == nil)
    }

    @Test("--template chooses the layout a root gets at its first use")
    func template() throws {
        #expect(try configuration(["--template", "atome", "--local-root", "/w"])?.template == .atome)
        #expect(try configuration(["mcp", "--template=default"])?.template == .default)
        #expect(try configuration([])?.template == nil)
    }

    @Test("--exit-grace bounds how long end of input waits for stuck requests")
    func exitGrace() throws {
        #expect(try configuration([])?.transport.exitGrace == .seconds(10))
        #expect(try configuration(["--exit-grace", "2.5"])?.transport.exitGrace == .milliseconds(2500))
        #expect(try configuration(["--exit-grace=0"])?.transport.exitGrace == .zero)
    }

    @Test("--conditions-max-age bounds how long shared device conditions are trusted")
    func conditionsMaxAge() throws {
        #expect(try configuration([])?.conditionsMaxAge == .seconds(300))
        #expect(try configuration(["mcp", "--conditions-max-age", "2.5"])?.conditionsMaxAge == .milliseconds(2500))
    }

    @Test("0 turns the stall timeout and the idle release off")
    func zeroMeansNever() throws {
        let c = try #require(try configuration(["--output-stall-timeout", "0", "--idle-release-after=0"]))
        #expect(c.transport.outputStallTimeout == nil && c.transport.idleReleaseAfter == nil)
    }

    @Test("mcp serves MCP over NDJSON, journaling into the given session")
    func mcp() throws {
        let c = try #require(try configuration(["mcp", "--session", "sess_1", "--framing", "lsp", "--local-root", "/w"]))
        #expect(c.forceMCP && c.mcpSession == "sess_1" && c.transport.framing == .ndjson && c.localRoot == "/w")
        #expect(try configuration(["mcp"])?.mcpSession == nil)
    }

    @Test("--icloud-container names the cloud root unless --cloud-root does")
    func icloudContainer() throws {
        let c = try #require(try configuration(["--icloud-container", "iCloud.com.example"]))
        #expect(c.cloudRoot?.contains("iCloud.com.example") == true)
        #expect(try configuration(["--cloud-root", "/c", "--icloud-container", "iCloud.com.example"])?.cloudRoot == "/c")
    }

    static let refused: [[String]] = [
        ["--max-message-bytes", "0"], ["--output-stall-timeout", "-1"], ["--idle-release-after", "nan"],
        ["--idle-release-after", "-2"], ["--framing", "xml"], ["--template", "garageband"], ["--log-level", "loud"], ["--max-message-bytes", "lots"],
        ["--exit-grace", "-1"], ["--exit-grace", "nan"],
        ["--conditions-max-age", "0"], ["--conditions-max-age", "nan"], ["--conditions-max-age", "86401"],
        ["--local-root"], ["--session", "s"], ["serve", "--session", "s"], ["--unknown"],
        ["--enable-debug-methods=yes"], ["unknown-subcommand"], ["--local-root", "-x"],
    ]

    @Test("a command line that breaks a rule is refused with a message and a failing status", arguments: refused)
    func refusesBadLines(args: [String]) throws {
        let error = try #require(parseError(args))
        #expect(!WorkspaceBridgeCommand.message(for: error).isEmpty)
        #expect(WorkspaceBridgeCommand.exitCode(for: error) != .success)
    }

    @Test("help and version are answered, not served", arguments: [["--help"], ["-h"], ["--version"], ["serve", "--help"], ["help"]])
    func helpAndVersion(args: [String]) throws {
        if let error = parseError(args) {
            #expect(WorkspaceBridgeCommand.exitCode(for: error) == .success)
        } else {
            #expect(try configuration(args) == nil)
        }
    }
}
