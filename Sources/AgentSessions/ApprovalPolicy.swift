import JSON

/// Which tool calls of a session need the user's consent before they run.
///
/// - `none`: nothing does (the default: existing clients see no consent step).
/// - `destructive`: every tool annotated destructive (`destructiveHint`).
/// - `rules`: the tools named in `tools`, and every tool carrying one of `annotations`
///   (`destructive`, `openWorld`, `write` for any tool that is not read-only).
///
/// A decision the user asked to remember (`approve(…, remember: true)`) applies to later calls
/// of the same tool in the same session.
public enum ApprovalPolicy: Sendable, Equatable {
    case none
    case destructive
    case rules(tools: Set<String>, annotations: Set<String>)

    public static let knownAnnotations: Set<String> = ["destructive", "openWorld", "write"]

    /// Parses `"none"`, `"destructive"`, or `{tools?: [names], annotations?: [names]}`.
    public init(json: JSON) throws(SessionError) {
        if let s = json.stringValue {
            switch s {
            case "none": self = .none
            case "destructive": self = .destructive
            default: throw .invalid("approvalPolicy must be \"none\", \"destructive\" or {tools, annotations}")
            }
            return
        }
        guard case .object(let o) = json else {
            throw .invalid("approvalPolicy must be \"none\", \"destructive\" or {tools, annotations}")
        }
        func names(_ key: String) throws(SessionError) -> Set<String> {
            guard let v = o[key], !v.isNull else { return [] }
            guard let list = v.arrayValue else { throw .invalid("approvalPolicy.\(key) must be an array of strings") }
            var out = Set<String>()
            for x in list {
                guard let s = x.stringValue, !s.isEmpty else { throw .invalid("approvalPolicy.\(key) must be an array of strings") }
                out.insert(s)
            }
            return out
        }
        let annotations = try names("annotations")
        if let bad = annotations.subtracting(Self.knownAnnotations).sorted().first {
            throw .invalid("unknown annotation \(bad) in approvalPolicy.annotations (destructive, openWorld, write)")
        }
        let tools = try names("tools")
        self = tools.isEmpty && annotations.isEmpty ? .none : .rules(tools: tools, annotations: annotations)
    }

    public var json: JSON {
        switch self {
        case .none: "none"
        case .destructive: "destructive"
        case .rules(let tools, let annotations):
            ["tools": .array(tools.sorted().map(JSON.string)), "annotations": .array(annotations.sorted().map(JSON.string))]
        }
    }

    /// Whether a call of `tool` needs consent under this policy.
    public func requiresConsent(_ tool: ToolFacts) -> Bool {
        switch self {
        case .none: return false
        case .destructive: return tool.destructive
        case .rules(let tools, let annotations):
            return tools.contains(tool.name) || (annotations.contains("destructive") && tool.destructive)
                || (annotations.contains("openWorld") && tool.openWorld) || (annotations.contains("write") && !tool.readOnly)
        }
    }
}

/// What the approval rules need to know of a tool (its name and annotations).
public struct ToolFacts: Sendable, Equatable {
    public var name: String
    public var readOnly: Bool
    public var destructive: Bool
    public var openWorld: Bool

    public init(name: String, readOnly: Bool = false, destructive: Bool = false, openWorld: Bool = false) {
        self.name = name
        self.readOnly = readOnly
        self.destructive = destructive
        self.openWorld = openWorld
    }
}
