#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
@testable import AgentSessions
import Testing

@Suite("Session temp files")
struct TempNameTests {
    @Test("temp files carry the writer's pid, so the start-up sweep never removes a live writer's")
    func pidInTempName() {
        let name = Disk.tempName(for: "/w/.workspace/sessions/s1/lease.json")
        #expect(name.hasPrefix("/w/.workspace/sessions/s1/.syncthing.lease.json.wb-"))
        #expect(name.hasSuffix(".tmp"))
        let tag = name.dropLast(4).suffix(16)
        let pidHex = String(UInt32(truncatingIfNeeded: getpid()), radix: 16)
        #expect(UInt32(String(tag.prefix(8)), radix: 16) == UInt32(pidHex, radix: 16))
    }
}
