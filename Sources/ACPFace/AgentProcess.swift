#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CWorkspaceShims
import JSON
import JSONRPC
import Logging
import Synchronization
import SystemSupport

/// One run of the downstream agent: a child process whose stdin and stdout are pipes to us
/// (its stderr is ours, so its logs reach the editor's log like ours do), read and written by a `Peer`.
///
/// Its life is tied to ours (`wb_spawn_tied`): it leads a process group of its own, and on Linux
/// the kernel kills it when we die, even by SIGKILL. Its own children (the `mcp --session`
/// server it starts for a session) are in its group: they get SIGTERM once it has exited, and
/// with it when we stop it. Where there is no parent-death signal (Apple systems) an agent that
/// outlives a killed proxy still sees its input end, which ends an ACP agent.
///
/// Guarantees: sending never blocks the caller (the peer queues; a broken pipe discards output);
/// `onExit` runs once, on the reader thread, after every message the agent wrote has been handed
/// to `onIncoming`, and after the child has been reaped.
/// `generation` tells runs apart, so an answer meant for an earlier run is never given to a later one.
final class AgentProcess: Sendable {
    struct SpawnError: Error, CustomStringConvertible {
        let description: String
    }

    let pid: pid_t
    let generation: Int
    /// The agent's side of the JSON-RPC conversation: its stdout read, its stdin written.
    let peer: Peer

    /// Starts `command` (looked up in PATH) with `arguments`; the agent's peer starts reading at once.
    init(command: [String], generation: Int, peerOptions: Peer.Options, logger: Logger,
         onIncoming: @escaping @Sendable (Peer.Incoming) -> Void, onExit: @escaping @Sendable (String) -> Void) throws {
        guard let program = command.first else { throw SpawnError(description: "no agent command given") }
        var toChild: [Int32] = [0, 0]
        var fromChild: [Int32] = [0, 0]
        guard pipe(&toChild) == 0 else { throw SpawnError(description: "pipe: \(describeErrno(errno))") }
        guard pipe(&fromChild) == 0 else {
            close(toChild[0]); close(toChild[1])
            throw SpawnError(description: "pipe: \(describeErrno(errno))")
        }
        // Only the child's ends reach the child, and only as its stdin and stdout.
        for fd in toChild + fromChild { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        let argv: [UnsafeMutablePointer<CChar>?] = command.map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        var child: Int32 = 0
        let rc = wb_spawn_tied(program, argv, environ, toChild[0], fromChild[1], &child)
        close(toChild[0])
        close(fromChild[1])
        guard rc == 0 else {
            close(toChild[1]); close(fromChild[0])
            throw SpawnError(description: "cannot start the agent \(program): \(describeErrno(rc))")
        }
        pid = child
        self.generation = generation
        let readFD = fromChild[0]
        let writeFD = toChild[1]
        let pid = child
        let reaped = Reaped()
        self.reaped = reaped
        do {
            peer = try Peer(output: writeFD, options: peerOptions, logger: logger, onOutputDone: { close(writeFD) })
            try peer.start(input: readFD, onIncoming: onIncoming, onEnd: {
                close(readFD)
                // Wait for the exit without reaping, then reap under the lock `terminate` signals
                // under: the pid cannot be another process's while it is signalled.
                var info = siginfo_t()
                while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) < 0 && errno == EINTR {}
                Self.endGroup(pid)
                var status: Int32 = 0
                reaped.done.withLock { done in
                    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                    done = true
                }
                onExit(Self.describe(status))
            })
        } catch {
            kill(pid, SIGKILL)
            throw SpawnError(description: "no thread for the agent's input or output: \(error)")
        }
    }

    /// Whether the child has been reaped (its pid may then be anyone's).
    private final class Reaped: Sendable { let done = Mutex(false) }
    private let reaped: Reaped

    /// Ends the agent's input once what was sent before is written (without waiting for an
    /// agent that reads nothing): an ACP agent ends then.
    func closeInput() { peer.closeOutput(wait: false) }

    /// Sends SIGTERM to the agent and its group, unless the agent has already exited and been reaped.
    func terminate() { signalGroup(SIGTERM) }

    private func signalGroup(_ sig: Int32) {
        reaped.done.withLock { done in if !done { kill(-pid, sig) } }
    }

    /// SIGTERM to what is left of the group of `leader`, which has exited and is not reaped yet
    /// (so its pid, the group's id, cannot be another's).
    private static func endGroup(_ leader: pid_t) {
        _ = kill(-leader, SIGTERM)
    }

    var hasExited: Bool { reaped.done.withLock { $0 } }

    /// Ends the agent: end of input, `patience` for it to exit by itself, then SIGTERM to its
    /// group, and SIGKILL after `patience` more (a clean exit of ours leaves nothing running).
    func stop(patience: Duration = .seconds(2)) {
        closeInput()
        waitForExit(patience)
        terminate()
        waitForExit(patience)
        signalGroup(SIGKILL)
    }

    private func waitForExit(_ patience: Duration) {
        let deadline = ContinuousClock.now + patience
        while !hasExited, ContinuousClock.now < deadline { usleep(2_000) }
    }

    private static func describe(_ status: Int32) -> String {
        let signal = status & 0x7f
        if signal != 0 { return "killed by signal \(signal)" }
        return "exited with status \((status >> 8) & 0xff)"
    }
}
