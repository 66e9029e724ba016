#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
@testable import Workspace

/// `receive` (what `migrate` copies each file with) places only a copy it has verified.
@Suite("Verified copies between workspaces")
struct ReceiveTests {
    private func bytes(_ n: Int, seed: UInt8) -> [UInt8] { (0..<n).map { UInt8(truncatingIfNeeded: $0 &* 31) &+ seed } }

    @Test("a copy of any size lands whole, with the SHA-256 of its bytes", arguments: [0, 1, 4095, 4096, 1 << 20, (1 << 20) + 3, 3 << 20])
    func copiesWhole(size: Int) throws {
        let (a, b) = (try Workspace(rootPath: tempRoot(), bootstrap: false), try Workspace(rootPath: tempRoot(), bootstrap: false))
        let p = try WorkspacePath("d/f.bin")
        let data = bytes(size, seed: 7)
        _ = try a.save(p, contents: data)
        let r = try b.receive(p, from: a, to: p, overwrite: false, isCancelled: { false })
        #expect(r.bytes == Int64(size))
        #expect(r.sha256 == (try a.sha256(p)))
        #expect(try b.read(p, maxBytes: 8 << 20).bytes == data)
    }

    @Test("a source changed in place after it was read still gets the copy of what was read, verified by its hash")
    func sourceChangedDuringVerification() throws {
        let (aRoot, bRoot) = (tempRoot(), tempRoot())
        let (a, b) = (try Workspace(rootPath: aRoot, bootstrap: false), try Workspace(rootPath: bRoot, bootstrap: false))
        let p = try WorkspacePath("f.bin")
        let original = bytes(10_000, seed: 1)
        _ = try a.save(p, contents: original)
        let expected = try a.sha256(p)
        // The copy loop asks twice (a chunk, then the end); the third question comes from the
        // comparison: overwrite the source in place (same size, other bytes) just then.
        var asked = 0
        let r = try b.receive(p, from: a, to: p, overwrite: false, isCancelled: {
            asked += 1
            if asked == 3 {
                let fd = open(aRoot + "/f.bin", O_WRONLY)
                let other = bytes(10_000, seed: 2)
                _ = other.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
                close(fd)
            }
            return false
        })
        #expect(asked >= 3)
        #expect(r.sha256 == expected)
        #expect(try b.read(p, maxBytes: 1 << 20).bytes == original)
        #expect(try a.read(p, maxBytes: 1 << 20).bytes != original)
    }
}
