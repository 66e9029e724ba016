import JSON
import Testing
@testable import AgentSessions

@Suite("Session titles")
struct TitleTests {
    @Test("setTitle is durable: a store opened afresh sees the new title, and the same title twice records nothing")
    func durable() throws {
        let f = Fixture()
        let store = f.store()
        let s = try store.create(title: "Untitled")
        _ = try store.setTitle(id: s.id, "From the first prompt")
        let records = f.read(f.journal(s.id)).split(separator: 10).count
        _ = try store.setTitle(id: s.id, "From the first prompt")
        #expect(f.read(f.journal(s.id)).split(separator: 10).count == records)
        store.close()
        #expect(try f.store().get(id: s.id).title == "From the first prompt")
    }
}
