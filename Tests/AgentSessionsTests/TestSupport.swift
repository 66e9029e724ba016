#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import JSON
import Synchronization
import Testing
@testable import AgentSessions

/// A settable wall clock shared by the stores of one test.
final class TestClock: Sendable {
    private let nanos: Atomic<Int64>

    init(_ start: Int64 = 1_750_000_000_000_000_000) { nanos = Atomic(start) }

    var now: @Sendable () -> Int64 {
        { [self] in nanos.add(1_000, ordering: .relaxed).newValue }  // strictly increasing
    }

    func advance(seconds: Int64) { nanos.add(seconds * 1_000_000_000, ordering: .relaxed) }
}

/// A fresh folder for one test, removed when the fixture goes away.
final class Fixture {
    let root: String
    let clock = TestClock()

    init() {
        var template = Array("/tmp/agent-sessions-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "mkdtemp failed")
        root = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    deinit { _ = Disk.removeTree(root) }

    var sessionsDirectory: String { root + "/.workspace/sessions" }
    var queueDirectory: String { root + "/.workspace/queue" }

    func store(owner: String = "device-a", leaseSeconds: Int = 60, pricing: Pricing = Pricing(),
               snapshotInterval: Int = 256, clock: TestClock? = nil) -> SessionStore {
        SessionStore(directory: sessionsDirectory, owner: owner, leaseSeconds: leaseSeconds, pricing: pricing,
                     snapshotInterval: snapshotInterval, now: (clock ?? self.clock).now)
    }

    func journal(_ id: String) -> String { sessionsDirectory + "/\(id)/journal.jsonl" }
    func folder(_ id: String) -> String { sessionsDirectory + "/\(id)" }

    func read(_ path: String) -> [UInt8] { (try? Disk.readFile(path)).flatMap { $0 } ?? [] }

    func write(_ path: String, _ bytes: [UInt8]) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        precondition(fd >= 0)
        _ = bytes.withUnsafeBytes { Disk.writeAll(fd, $0) }
        close(fd)
    }

    func exists(_ path: String) -> Bool { Disk.identity(path: path) != nil }

    /// The journal's lines (without newlines), as text.
    func lines(_ path: String) -> [String] {
        String(decoding: read(path), as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            .map(String.init)
    }

    /// Whether every line of the file is an intact record and the file ends with a newline.
    func isClean(_ path: String) -> Bool {
        let bytes = read(path)
        guard bytes.last == 0x0A else { return bytes.isEmpty }
        return bytes.withUnsafeBytes { raw in
            let scan = JournalScan.scan(raw)
            return scan.fault == nil && scan.validEnd == Int64(bytes.count)
        }
    }
}

/// A session moved along the table to `state`.
func session(in state: SessionState, _ store: SessionStore) throws -> Session {
    let s = try store.create(title: "t")
    let path: [SessionState] = switch state {
    case .idle: []
    case .running: [.running]
    case .waitingForUser: [.running, .waitingForUser]
    case .backgrounded: [.running, .backgrounded]
    case .completed: [.running, .completed]
    case .failed: [.running, .failed]
    }
    for next in path { _ = try store.transition(id: s.id, to: next) }
    return try store.get(id: s.id)
}

func text(_ s: String) -> MessageInput { MessageInput(role: .user, content: .string(s)) }


func isReleaseBuild() -> Bool {
    #if DEBUG
    return false
    #else
    return true
    #endif
}

/// What the tests ask of an error's typed details.
extension SessionError.Details {
    /// The schema word saying why (`damaged`, `expensiveNetwork`…), whichever case carries one.
    var reason: String? {
        switch self {
        case .reason(let r), .fieldReason(_, let r), .limit(let r, _, _), .unimportable(let r, _, _), .deferred(let r, _, _): r
        case .compaction(_, let r): r
        default: nil
        }
    }

    /// The member or param at fault.
    var field: String? {
        switch self {
        case .field(let f), .fieldReason(let f, _): f
        case .unimportable(_, let f, _): f
        default: nil
        }
    }
}

extension SessionError.Details {
    /// The tool an approval was asked for.
    var approvalName: String? {
        if case .approvalOf(_, _, let name) = self { name } else { nil }
    }
}
