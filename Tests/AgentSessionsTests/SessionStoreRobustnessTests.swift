import Foundation
import JSON
import Testing
@testable import AgentSessions

/// A session folder a sync engine is still bringing (its journal not there yet when the store
/// first looks) reads as "no such session" for as long as that lasts, never as a crash, and
/// as the session once the journal has arrived.
@Suite("A session folder without its journal")
struct SessionFolderWithoutJournalTests {
    @Test("a journal absent at the first load and at the next read is NotFound both times, then the session once it arrives")
    func journalAbsentAtFirstLoad() throws {
        let f = Fixture()
        let writer = f.store()
        let s = try writer.create(title: "synced")
        _ = try writer.appendMessages(id: s.id, messages: [MessageInput(id: "m1", role: .user, content: "hi")])
        writer.close()

        let reader = f.store(owner: "device-b")
        _ = try reader.handle(s.id)  // the folder is seen with its journal...
        let journal = f.journal(s.id)
        #expect(rename(journal, journal + ".away") == 0)  // ...which is gone before it is read
        for _ in 0..<2 {
            #expect(throws: SessionError.self) { _ = try reader.messages(id: s.id) }
        }
        #expect(rename(journal + ".away", journal) == 0)
        #expect(try reader.messages(id: s.id).map(\.id) == ["m1"])
    }
}
