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
                forwarded = Forwarded(method: "", reaches: [], planned: .success(Forwarded.Planned(schedule: .barrier) { _ in
                    throw RPCError.internalError("a described command does not run")
                }))
                return
            }
            guard let target = ExecuteCommand.byCommand[command] else {
                throw RPCError.invalidParams(field: "command", expected: "one of executeCommandProvider.commands (wsb.METHOD)",
                                             got: "\"\(command.prefix(200))\"")
            }
            guard (arguments?.count ?? 0) <= 1 else {
                throw RPCError.invalidParams(field: "arguments", expected: "at most one item, the method's params", got: "\(arguments?.count ?? 0) items")
            }
            forwarded = Forwarded(target, arguments?.first)
        }
    }

    /// The command's method, what it reaches, and its params decoded by its own declaration
    /// (with its schedule and handler), or why they do not decode: kept, so that the planner
    /// refuses a method this server does not grant before its params are looked at
    /// (`forwarded`), and `schedule` answers the decoding error otherwise.
    struct Forwarded: Sendable {
        struct Planned: Sendable {
            let schedule: Schedule
            let run: @Sendable (Call) throws -> JSON
        }
        let method: String
        let reaches: Set<Capability>
        let planned: Swift.Result<Planned, any Error>

        init(method: String, reaches: Set<Capability>, planned: Swift.Result<Planned, any Error>) {
            self.method = method
            self.reaches = reaches
            self.planned = planned
        }

        /// `reaches`: the method's own, and what a call of it forwards to in turn (a
        /// `session/callTool`'s tool) once its params decode.
        init<D: MethodDeclaration>(_ target: D.Type, _ params: JSON?) {
            method = D.method
            var further: Set<Capability> = []
            planned = Swift.Result {
                let p = try D.Params(try ParamReader(params, path: "arguments[0]"))
                further = D.forwarded(p)?.reaches ?? []
                return Planned(schedule: try D.schedule(p)) { call in try D.handle(p, call).json }
            }
            reaches = D.reaches.union(further)
        }
    }

    /// A command reaches nothing itself; what its method reaches is checked by the planner.
    static let reaches: Set<Capability> = []
    static func forwarded(_ p: Params) -> Forward? { Forward(method: p.forwarded.method, reaches: p.forwarded.reaches) }
    static func schedule(_ p: Params) throws -> Schedule { try p.forwarded.planned.get().schedule }
    /// The command's method's own result, whatever its shape.
    static func handle(_ p: Params, _ call: Call) throws -> ChosenResult { ChosenResult(value: try p.forwarded.planned.get().run(call)) }
}
