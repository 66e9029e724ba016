import JSONRPC
import Logging

/// The command lines an editor or a script uses every time it starts the server, read without
/// swift-argument-parser.
///
/// swift-argument-parser builds its model of the commands by reflection at every start, which
/// costs about 2 ms here (`Mirror`, type metadata, conformance lookups): a third of the time
/// from spawn to `initialize` answered. This reads the same options, for `serve` (named or
/// not) and `mcp`, in `--name value` and `--name=value` forms, into the same
/// `ServeArguments`, applying the same rules (`ServeArguments.validate`). Anything else (help,
/// version, an unknown or repeated option, a value it cannot read, a value that breaks a rule)
/// returns nil, and swift-argument-parser handles the command line as before, with its
/// messages. A test compares both parsers on many command lines.
enum FastArguments {
    struct Invocation: Equatable {
        var arguments: ServeArguments
        var mcp: Bool
        var session: String?
    }

    static func parse(_ args: [String]) -> Invocation? {
        var rest = args[...]
        var inv = Invocation(arguments: ServeArguments(), mcp: false, session: nil)
        if let first = rest.first, !first.hasPrefix("-") {
            switch first {
            case "serve": break
            case "mcp": inv.mcp = true
            default: return nil
            }
            rest = rest.dropFirst()
        }
        var seen = Set<String>()
        var a = inv.arguments
        while let arg = rest.popFirst() {
            guard arg.hasPrefix("--"), arg.count > 2 else { return nil }
            var name = String(arg.dropFirst(2))
            var inlineValue: String?
            if let eq = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: eq)...])
                name = String(name[..<eq])
            }
            guard seen.insert(name).inserted else { return nil }
            if name == "enable-debug-methods" {
                guard inlineValue == nil else { return nil }
                a.enableDebugMethods = true
                continue
            }
            guard let value = inlineValue ?? rest.popFirst() else { return nil }
            // A value that looks like an option is read as one by swift-argument-parser.
            if inlineValue == nil && value.hasPrefix("-") { return nil }
            switch name {
            case "local-root": a.localRoot = value
            case "cloud-root": a.cloudRoot = value
            case "icloud-container": a.icloudContainer = value
            case "config-dir": a.configDir = value
            case "log-file": a.logFile = value
            case "framing": guard let f = FramingMode(rawValue: value) else { return nil }; a.framing = f
            case "log-level": guard let l = Logger.Level(rawValue: value) else { return nil }; a.logLevel = l
            case "max-message-bytes": guard let n = Int(value) else { return nil }; a.maxMessageBytes = n
            case "output-stall-timeout": guard let n = Int(value) else { return nil }; a.outputStallTimeout = n
            case "idle-release-after": guard let d = Double(value) else { return nil }; a.idleReleaseAfter = d
            case "exit-grace": guard let d = Double(value) else { return nil }; a.exitGrace = d
            case "session" where inv.mcp: inv.session = value
            default: return nil
            }
        }
        guard (try? a.validate()) != nil else { return nil }
        inv.arguments = a
        return inv
    }
}
