import ArgumentParser
import BridgeServer

/// `workspace-bridge doctor`: checks the setup `serve` would run with (same options) and prints
/// what it found, one line each, with a fix under every problem; exit status 1 when a problem
/// was found (warnings alone leave it 0). Writes nothing.
struct Doctor: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check this machine's setup (jansson, config folder, roots, sync engine, permissions) and say how to fix each problem.",
        discussion: "Takes the options of serve: put doctor in the command line you serve with to check that setup. Exit status 1 when a problem was found.")

    @OptionGroup var options: ServerOptions

    func run() throws {
        let environment = ServerMain.environment()
        let hub = try HubStart.address(option: options.hub, environment: environment)
        let findings = DoctorChecks(configuration: options.configuration(environment: environment), hub: hub).run()
        print("\(ServerInfo.name) \(ServerInfo.version) (protocol \(ServerInfo.protocolVersion))")
        for finding in findings { finding.lines.forEach { print($0) } }
        let problems = findings.filter { $0.severity == .problem }.count
        let warnings = findings.filter { $0.severity == .warning }.count
        switch (problems, warnings) {
        case (0, 0): print("No problem found.")
        case (0, _): print("No problem found; \(warnings) warning(s).")
        default: print("\(problems) problem(s) found.")
        }
        if problems > 0 { throw ExitCode(1) }
    }
}
