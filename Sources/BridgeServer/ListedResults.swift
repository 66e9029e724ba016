import JSON

/// A result whose JSON truly comes from elsewhere, so no field list here could encode it: a tool
/// result the journal recorded and replays as it was (`SessionToolCalls.Answer`), or an answer of
/// the MCP face built by that face's own conventions (`MCPToolAnswer`, `MCPTaskDetail`). Its field
/// names are listed by hand, next to the method; the schema agreement check compares these names
/// (their types are not checked). A value the server encodes itself is an `ObjectResult` instead.
package protocol ListedObjectResult: MethodResult {
    static var fieldNames: [String] { get }
}

extension ListedObjectResult {
    package static var jsonType: String? { "object" }
    package static var shape: ResultShape {
        .object(fieldNames.map { ResultFieldShape(name: $0, type: nil, optional: true) })
    }
}
