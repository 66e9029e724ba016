import ArgumentParser
import BridgeServer

/// `--deny`: the capabilities (`Capability`) this server process withholds from its client, for
/// `serve` and `mcp` (the web host starts its server with `--deny host-paths,debugging,lifecycle`).
struct GrantOptions: ParsableArguments {
    @Option(name: .customLong("deny"), parsing: .singleValue,
            help: ArgumentHelp("Refuse every call that needs one of these capabilities, whatever the name or route it comes by (a command, a batch, a tool call): answered CapabilityDenied. Comma-separated or repeated; one of \(Capability.names.joined(separator: ", ")).",
                               valueName: "capability"))
    var deny: [String] = []

    var denied: [Capability] {
        get throws {
            try deny.flatMap { $0.split(separator: ",") }.map { name in
                guard let c = Capability(rawValue: String(name)) else {
                    throw ValidationError("--deny: '\(name)' is not a capability (one of \(Capability.names.joined(separator: ", ")))")
                }
                return c
            }
        }
    }

    func validate() throws { _ = try denied }

    /// The grant: every capability but the denied ones.
    func grant() throws -> Set<Capability> { Set(Capability.allCases).subtracting(try denied) }
}
