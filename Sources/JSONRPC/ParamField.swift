import Synchronization

/// One field a params decoder reads, as `Params(describing:)` records it.
public struct ParamField: Sendable, Equatable {
    public var name: String
    /// The JSON Schema type ("string", "integer", …); nil for any value.
    public var type: String?
    public var required: Bool
    /// The allowed values of a string with a fixed set of them.
    public var allowed: [String]?

    public init(name: String, type: String?, required: Bool, allowed: [String]? = nil) {
        self.name = name
        self.type = type
        self.required = required
        self.allowed = allowed
    }
}

/// Collects the fields a describing `Params` is asked for, first reading first; a field read
/// twice is kept once (required if any read requires it).
public final class FieldRecorder: Sendable {
    private let fields = Mutex<[ParamField]>([])
    private let discards: Bool

    public init() { discards = false }

    /// A recorder for a nested object's fields, which are not part of the description.
    init(discarding parent: FieldRecorder) { discards = true }

    func record(_ f: ParamField) {
        guard !discards else { return }
        fields.withLock { fs in
            if let i = fs.firstIndex(where: { $0.name == f.name }) {
                fs[i].required = fs[i].required || f.required
                if fs[i].type == nil { fs[i].type = f.type }
                if fs[i].allowed == nil { fs[i].allowed = f.allowed }
            } else {
                fs.append(f)
            }
        }
    }

    public var recorded: [ParamField] { fields.withLock { $0 } }
}
