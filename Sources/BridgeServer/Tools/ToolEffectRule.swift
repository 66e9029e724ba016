import AgentSessions
import JSON

/// What a tool's calls do to the workspace, declared once per tool (a required part of every
/// `Tool`, so a new tool cannot leave it out): an effect, and at most one argument value that
/// changes it (`copy_file`'s `overwrite: true` replaces; `write_file`'s `exclusive: true` only
/// creates). The effect of a call is a function of its arguments alone, never of what the
/// workspace holds at the time, so the approval a user gives is for what the call asked to do
/// (bound to its arguments' digest) and no race between asking and running can change it.
///
/// The approval policy weighs a call's effect (`ToolFacts`); the tool's MCP annotations are its
/// extremes (`readOnlyHint`: it never does more than read; `destructiveHint`: some call of it
/// replaces or removes existing content).
struct ToolEffectRule: Sendable, Equatable {
    /// The effect of a call that does not set `argument` to `value`.
    var effect: ToolEffect
    /// The argument whose value changes the effect, the value, and the effect then.
    var argument: String?
    var value: JSON?
    var then: ToolEffect?

    static let reads = ToolEffectRule(effect: .reads)
    static let adds = ToolEffectRule(effect: .adds)
    static let replaces = ToolEffectRule(effect: .replaces)

    /// `effect`, or `then` for a call whose `argument` is `value`.
    static func when(_ argument: String, is value: JSON, then: ToolEffect, otherwise effect: ToolEffect) -> ToolEffectRule {
        ToolEffectRule(effect: effect, argument: argument, value: value, then: then)
    }

    /// What a call with `arguments` does.
    func effect(of arguments: JSON) -> ToolEffect {
        if let argument, let then, arguments[argument] == value { return then }
        return effect
    }

    /// The least and the most any call does.
    var least: ToolEffect { min(effect, then ?? effect) }
    var most: ToolEffect { max(effect, then ?? effect) }
}
