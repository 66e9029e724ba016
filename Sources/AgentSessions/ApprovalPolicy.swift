import JSON

/// Which tool calls of a session need the user's consent before they run.
///
/// - `none`: nothing does (the default: existing clients see no consent step).
/// - `destructive`: every call whose effect replaces or removes existing content
///   (`ToolEffect.replaces`), whichever tool makes it.
/// - `rules`: the tools named in `tools`, and every call matching one of `annotations`
///   (`destructive`: effect `replaces`; `write`: any effect but `reads`; `openWorld`: a tool that
///   needs the network).
///
/// The policy weighs a call's effect (`ToolFacts.effect`, what this call with these arguments
/// does), never a tool's name, except for the names a `rules` policy lists itself. A decision the
/// user asked to remember (`approve(…, remember: true)`) applies to later calls of the same tool
/// with the same effect in the same session.
public enum ApprovalPolicy: Sendable, Equatable {
    case none
    case destructive
    case rules(tools: Set<String>, annotations: Set<String>)

    public static let knownAnnotations: Set<String> = ["destructive", "openWorld", "write"]

    /// Why a value is not a policy; the server words it for the client.
    public enum Refusal: Error, Sendable, Equatable {
        /// Neither `"none"`, `"destructive"` nor an object.
        case notAPolicy
        /// `tools` or `annotations` is not an array of non-empty strings.
        case notNames(key: String)
        /// An annotation outside `knownAnnotations` (the first, sorted).
        case unknownAnnotation(String)
    }

    /// Reads `"none"`, `"destructive"`, or `{tools?: [names], annotations?: [names]}`: the one
    /// reading of a policy, for the journal (which holds it in this form, `storedJSON`) and the
    /// protocol alike. A rules policy without tools or annotations is `none`.
    public init(reading json: JSON) throws(Refusal) {
        if let s = json.stringValue {
            switch s {
            case "none": self = .none
            case "destructive": self = .destructive
            default: throw .notAPolicy
            }
            return
        }
        guard case .object(let o) = json else { throw .notAPolicy }
        func names(_ key: String) throws(Refusal) -> Set<String> {
            guard let v = o[key], !v.isNull else { return [] }
            guard let list = v.arrayValue else { throw .notNames(key: key) }
            var out = Set<String>()
            for x in list {
                guard let s = x.stringValue, !s.isEmpty else { throw .notNames(key: key) }
                out.insert(s)
            }
            return out
        }
        let annotations = try names("annotations")
        if let bad = annotations.subtracting(Self.knownAnnotations).sorted().first { throw .unknownAnnotation(bad) }
        let tools = try names("tools")
        self = tools.isEmpty && annotations.isEmpty ? .none : .rules(tools: tools, annotations: annotations)
    }

    /// Whether `call` needs consent under this policy.
    public func requiresConsent(_ call: ToolFacts) -> Bool {
        switch self {
        case .none: return false
        case .destructive: return call.effect == .replaces
        case .rules(let tools, let annotations):
            return tools.contains(call.name) || (annotations.contains("destructive") && call.effect == .replaces)
                || (annotations.contains("openWorld") && call.openWorld) || (annotations.contains("write") && call.effect != .reads)
        }
    }
}

/// What one tool call does to the workspace: the input the approval policy weighs. Ordered from
/// harmless to destructive.
public enum ToolEffect: String, Sendable, Comparable, CaseIterable {
    /// Changes nothing.
    case reads
    /// Adds only: creates a file or folder, or appends; nothing existing is replaced or removed.
    case adds
    /// Replaces or removes existing content: overwrites, deletes, moves, replaces.
    case replaces

    private var rank: Int { Self.allCases.firstIndex(of: self) ?? 0 }
    public static func < (a: ToolEffect, b: ToolEffect) -> Bool { a.rank < b.rank }
}

/// What the approval rules need to know of one tool call: the tool's name, the call's effect
/// (derived from the tool and these arguments), and whether the tool needs the network.
public struct ToolFacts: Sendable, Equatable {
    public var name: String
    public var effect: ToolEffect
    public var openWorld: Bool

    public init(name: String, effect: ToolEffect, openWorld: Bool = false) {
        self.name = name
        self.effect = effect
        self.openWorld = openWorld
    }
}
