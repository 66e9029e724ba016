/// Finds the regular expressions that repeat a group which itself repeats (`(a+)+`, `(a*b?)*`,
/// `(?:x+){2,}`): a backtracking engine can take exponential time on them, and Swift's cannot be
/// stopped once it runs, so they are refused. Character classes and escapes are skipped.
enum PatternNesting {
    /// The character offset of the repeated group, or nil when there is none.
    static func nestedRepetition(in pattern: String) -> Int? {
        let c = Array(pattern)
        var groups: [(start: Int, repeats: Bool)] = []
        var i = 0
        func quantifierAt(_ k: Int) -> Bool {
            guard k < c.count else { return false }
            if c[k] == "*" || c[k] == "+" { return true }
            if c[k] == "{" { return c[k...].prefix(while: { $0 != "}" }).contains(",") }  // {n,} and {n,m}; {n} is bounded
            return false
        }
        while i < c.count {
            switch c[i] {
            case "\\": i += 1
            case "[":
                i += 1
                if i < c.count && c[i] == "^" { i += 1 }
                if i < c.count && c[i] == "]" { i += 1 }
                while i < c.count && c[i] != "]" { if c[i] == "\\" { i += 1 }; i += 1 }
            case "(": groups.append((i, false))
            case ")":
                guard let g = groups.popLast() else { break }
                if g.repeats && quantifierAt(i + 1) { return g.start }
                if g.repeats || quantifierAt(i + 1), !groups.isEmpty { groups[groups.count - 1].repeats = true }
            case "*", "+", "{":
                if !groups.isEmpty && quantifierAt(i) { groups[groups.count - 1].repeats = true }
            default: break
            }
            i += 1
        }
        return nil
    }
}
