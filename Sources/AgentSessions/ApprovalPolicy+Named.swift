extension ApprovalPolicy {
    /// The policy a command line names (`--approval-policy`): `none`, `destructive` (every call
    /// that replaces or removes existing content asks), `write` (every call that changes
    /// anything asks). Nil for any other name.
    public init?(named name: String) {
        switch name {
        case "none": self = .none
        case "destructive": self = .destructive
        case "write": self = .rules(tools: [], annotations: ["write"])
        default: return nil
        }
    }
}
