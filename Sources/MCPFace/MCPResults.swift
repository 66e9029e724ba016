import BridgeServer
import JSON
import Workspace

/// `tools/call`'s answer in both eras: the tool's result, or what a step before it answered
/// instead (a recorded result replayed from the journal, an approval's or the device policy's
/// answer, a task). `outcome` is what the modern era logs of it (`MCPRequestLog`).
enum MCPToolAnswer: ListedObjectResult {
    case tool(ToolResult)
    case answer(JSON)

    var json: JSON {
        switch self {
        case .tool(let r): r.mcpJSON
        case .answer(let j): j
        }
    }

    static let fieldNames = ["content", "structuredContent", "isError"]

    /// "ok", or for a result that ended `isError`, "isError" and its `code`.
    var outcome: String {
        switch self {
        case .tool(let r): return r.isError ? "isError \(r.code ?? "")" : "ok"
        // An answer in the tool result's shape, as recorded or as a step built it.
        case .answer(let j):
            guard j["isError"]?.boolValue == true else { return "ok" }
            return "isError \(j["structuredContent"]?["code"]?.stringValue ?? "")"
        }
    }
}

/// An answer the MCP face forwards as the task store or the client built it (`tasks/get`'s
/// detail): its fields are the task's, listed here.
struct MCPTaskDetail: ListedObjectResult {
    var json: JSON
    static let fieldNames = ["resultType", "taskId", "status", "statusMessage", "createdAt", "lastUpdatedAt", "ttlMs", "pollIntervalMs",
                             "result", "error"]
}

/// `tools/list`' result.
struct MCPToolList: ObjectResult {
    var tools: JSON
    static let fields: [ResultField<Self>] = [.field("tools", \.tools)]
}

/// One file of `resources/list`.
struct MCPResource: ObjectResult {
    var uri: String
    var path: WorkspacePath
    var size: Int64
    var etag: String
    static let fields: [ResultField<Self>] = [
        .field("uri", \.uri), .field("name", \.path.string), .field("title", \.path.name),
        .field("mimeType", { MCPResources.mimeType($0.path.name) }), .field("size", \.size),
        .field("_meta", { MCPResources.etagMeta($0.etag) }),
    ]
}

/// `resources/list`' result.
struct MCPResourceList: ObjectResult {
    var resources: [MCPResource]
    var nextCursor: String?
    static let fields: [ResultField<Self>] = [.field("resources", \.resources), .field("nextCursor", \.nextCursor)]
}

/// One content of `resources/read`: text, or base64 bytes.
struct MCPResourceContent: ObjectResult {
    var uri: String
    var mimeType: String
    var text: String?
    var blob: String?
    var etag: String
    init(uri: String, mimeType: String, text: String? = nil, blob: String? = nil, etag: String) {
        self.uri = uri
        self.mimeType = mimeType
        self.text = text
        self.blob = blob
        self.etag = etag
    }
    static let fields: [ResultField<Self>] = [.field("uri", \.uri), .field("mimeType", \.mimeType), .field("text", \.text),
                                               .field("blob", \.blob), .field("_meta", { MCPResources.etagMeta($0.etag) })]
}

/// `resources/read`'s result.
struct MCPResourceContents: ObjectResult {
    var contents: [MCPResourceContent]
    /// On an unchanged read: that it is unchanged, and the etag.
    var meta: JSON? = nil
    static let fields: [ResultField<Self>] = [.field("contents", \.contents), .field("_meta", \.meta)]
}

/// `resources/templates/list`' result: the one template, a workspace file by its path.
struct MCPResourceTemplates: ObjectResult {
    var rootURI: String
    static let fields: [ResultField<Self>] = [.field("resourceTemplates", { [Template(rootURI: $0.rootURI)] })]

    struct Template: ObjectResult {
        var rootURI: String
        static let fields: [ResultField<Self>] = [
            .field("uriTemplate", { $0.rootURI + "/{+path}" }), .field("name", { _ in "workspace-file" }),
            .field("title", { _ in "A file of the workspace" }),
            .field("description", { _ in "Any file under the workspace root, by its relative path." }),
        ]
    }
}

/// `server/discover`'s result.
struct MCPDiscovery: ObjectResult {
    var instructions: String
    static let fields: [ResultField<Self>] = [.field("supportedVersions", { _ in MCPVersions.all }),
                                               .field("capabilities", { _ in MCPModern.capabilities }),
                                               .field("instructions", \.instructions)]
}
