import JSON
import JSONRPC
import Workspace

/// `read_multiple_files`: several text files in one call, whole or only their first (`head`) or
/// last (`tail`) lines, within the 16 MiB one read may cost in all. Each file is read as
/// `read_file` reads it (`Workspace.readLines`, `LoadFile.loaded`): whole lines, binary files
/// refused, where to go on when a file was cut. A file that cannot be read is reported in its
/// own entry (`error`, `code`); the others are read all the same.
enum ReadMultipleFiles: ToolDeclaration {
    static let name = "read_multiple_files"
    static let reaches: Set<Capability> = [.workspace]

    struct Params: MethodParams {
        var rawPaths: [String]
        var window: Workspace.LineWindow

        init(_ p: ParamReader) throws {
            let items = try p.requiredArray("paths", expected: "an array of workspace paths")
            rawPaths = try items.enumerated().map { i, item in
                guard let s = item.stringValue else {
                    throw RPCError.invalidParams(field: p.field("paths") + "[\(i)]", expected: "a workspace path (string)", got: item.typeName)
                }
                return s
            }
            let head = try p.nonNegative("head").map { Int(clamping: $0) }
            let tail = try p.nonNegative("tail").map { Int(clamping: $0) }
            if head != nil, tail != nil {
                throw RPCError.invalidParams(field: p.field("tail"), expected: "head or tail, not both", got: "both")
            }
            window = tail.map { .last($0) } ?? .lines(from: 1, count: head)
        }
    }

    /// Reads each file named (a name that is not a path is reported in its entry, and claims nothing).
    static func schedule(_ p: Params) -> Schedule { .claims(scopedPaths(p).map { .read($0) }) }
    /// Every path named is within the caller's roots, or the call is refused.
    static func scopedPaths(_ p: Params) -> [WorkspacePath] { p.rawPaths.compactMap { try? WorkspacePath($0) } }

    static func handle(_ p: Params, _ call: Call) throws -> ToolOutput {
        let ws = try call.services.workspace()
        var budget = FileMethods.maxReadBytes
        var files: [JSON] = []
        var text: [String] = []
        for raw in p.rawPaths {
            if call.isCancelled { throw WorkspaceError(.cancelled, "cancelled") }
            var o: JSONObject
            do {
                let path = try WorkspacePath(raw)
                guard budget > 0 else {
                    throw WorkspaceError(.tooLarge, "this call's \(FileMethods.maxReadBytes) bytes are used up: read '\(path)' with read_file",
                                         path: path.string)
                }
                let r = try ws.readLines(path, p.window, maxBytes: budget, refuseBinary: true)
                let loaded = try LoadFile.loaded(r.status, r.bytes, offset: r.offset, eof: r.eof, encoding: .utf8)
                budget -= Int64(r.bytes.count)
                var entry = loaded
                entry.lineCount = r.lineCount
                entry.nextLine = r.nextLine
                o = ["path": entry.path.json, "data": .string(entry.data), "size": .int(entry.size), "etag": .string(entry.etag),
                     "eof": .bool(entry.eof), "lineCount": .int(Int64(r.lineCount))]
                if let next = entry.nextOffset { o["nextOffset"] = .int(next) }
                if let next = entry.nextLine { o["nextLine"] = .int(Int64(next)) }
                text.append("=== \(path) ===\n" + FileTools.readText(entry))
            } catch let e as WorkspaceError where e.code != .cancelled {
                let mapped = call.services.mapError(e)
                o = ["path": .string(raw), "error": .string(mapped.message), "code": .string(mapped.dataCode)]
                text.append("=== \(raw) ===\n[not read: \(mapped.message)]")
            }
            files.append(.object(o))
        }
        return ToolOutput(text: text.joined(separator: "\n\n"), structured: ["files": .array(files)])
    }
}
