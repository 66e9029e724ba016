/// Something a request touches, declared before it runs, so the connection can order
/// conflicting requests and run the rest in parallel.
///
/// A claim names a resource in a domain ("file", "session", …) by a `/`-separated path.
/// Two claims conflict when they are in the same domain, one path equals or contains the
/// other (a claim on `a` covers `a/b`), and at least one of them writes.
public struct Claim: Sendable, Hashable, CustomStringConvertible {
    public enum Access: String, Sendable { case read, write }

    public var domain: String
    public var components: [Substring]
    public var access: Access

    public init(_ domain: String, path: String, access: Access) {
        self.domain = domain
        self.components = path.split(separator: "/", omittingEmptySubsequences: true)
        self.access = access
    }

    public static func read(_ domain: String, _ path: String) -> Claim { Claim(domain, path: path, access: .read) }
    public static func write(_ domain: String, _ path: String) -> Claim { Claim(domain, path: path, access: .write) }

    public func conflicts(with other: Claim) -> Bool {
        guard domain == other.domain, access == .write || other.access == .write else { return false }
        let n = min(components.count, other.components.count)
        for i in 0..<n where components[i] != other.components[i] { return false }
        return true
    }

    public var description: String { "\(access.rawValue) \(domain):\(components.joined(separator: "/"))" }
}

/// When a request may run relative to the requests that arrived before it.
public enum Schedule: Sendable, Equatable {
    /// Touches nothing shared: runs at once.
    case free
    /// Waits for every earlier unfinished request with a conflicting claim.
    case claims([Claim])
    /// Waits for every earlier request, and every later request waits for it.
    case barrier
    /// Control messages (cancellation, tracing, exit, liveness): run at once, even while a
    /// barrier is in progress, and hold nothing back.
    case unordered

    /// Whether the request declares that it only reads: claims, every one of them a read.
    /// (`free` and `barrier` say nothing about writing.)
    public var onlyReads: Bool {
        if case .claims(let cs) = self { return !cs.isEmpty && cs.allSatisfy { $0.access == .read } }
        return false
    }

    func conflicts(withEarlier earlier: Schedule) -> Bool {
        switch (self, earlier) {
        case (.unordered, _), (_, .unordered): return false
        case (.barrier, _), (_, .barrier): return true
        case (.free, _), (_, .free): return false
        case (.claims(let a), .claims(let b)):
            for x in a { for y in b where x.conflicts(with: y) { return true } }
            return false
        }
    }
}
