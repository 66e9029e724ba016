import JSON
import JSONRPC

/// `workspace/executeCommand` (LSP): the custom methods for editors that can send no custom
/// request (Helix, plain `vscode-languageclient` commands). Command `wsb.METHOD` with
/// `arguments: [PARAMS]` is request `METHOD` with `PARAMS`: the same declaration decodes the
/// params, schedules the claims and runs the handler (nothing is implemented twice), and the
/// answer is that method's result or error. The commands are the method table's custom
/// requests (`MethodTables.commandDeclarations`), listed in `initialize`'s
/// `executeCommandProvider.commands`.
enum ExecuteCommand: MethodDeclaration {
    static let method = "workspace/executeCommand"
    static let prefix = "wsb."

    /// Each command's name, in the method table's order.
    static let commands: [String] = MethodTables.commandDeclarations.map { prefix + $0.method }
    private static let byCommand: [String: any MethodDeclaration.Type] =
        Dictionary(MethodTables.commandDeclarations.map { (prefix + $0.method, $0) }, uniquingKeysWith: { first, _ in first })

    /// The command's method, its params decoded by that method's own declaration.
    struct Params: MethodParams {
        var command: String
        var forwarded: Forwarded
        init(_ p: ParamReader) throws {
            command = try p.requiredString("command")
            let arguments = try p.array("arguments", expected: "an array holding the method's params object")
            if p.isDescribing {  // the schema agreement reads the fields; no command is named, nothing runs
                forwarded = Forwarded(schedule: .barrier) { _ in throw RPCError.internalError("a described command does not run") }
                return
            }
            guard let target = ExecuteCommand.byCommand[command] else {
                throw RPCError.invalidParams(field: "command", expected: "one of executeCommandProvider.commands (wsb.METHOD)",
                                             got: "\"\(command.prefix(200))\"")
            }
            guard (arguments?.count ?? 0) <= 1 else {
                throw RPCError.invalidParams(field: "arguments", expected: "at most one item, the method's params", got: "\(arguments?.count ?? 0) items")
            }
            forwarded = try Forwarded(target, ParamReader(arguments?.first, path: "arguments[0]"))
        }
    }

    /// A method's decoded params with its schedule and handler, whatever its params type.
    struct Forwarded: Sendable {
        let schedule: Schedule
        let run: @Sendable (Call) throws -> JSON

        init(schedule: Schedule, run: @escaping @Sendable (Call) throws -> JSON) {
            self.schedule = schedule
            self.run = run
        }

        init<D: MethodDeclaration>(_ target: D.Type, _ params: ParamReader) throws {
            let p = try D.Params(params)
            schedule = try D.schedule(p)
            run = { call in try D.handle(p, call).json }
        }
    }

    static func schedule(_ p: Params) -> Schedule { p.forwarded.schedule }
    /// The command's method's own result, whatever its shape.
    static func handle(_ p: Params, _ call: Call) throws -> ChosenResult { ChosenResult(value: try p.forwarded.run(call)) }
}
