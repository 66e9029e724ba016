import JSON
import Testing
@testable import AgentSessions

/// The pieces of `session/search` below the protocol: the record scanner that finds messages in a
/// journal line without decoding it, the regex guard, and the searched text of JSON values.
@Suite("Session search internals")
struct SearchScanTests {
    private func shape(_ record: JSON) -> (RecordShape?, [UInt8]) {
        let line = Array(JournalLine.encode(record).dropLast())
        return (line.withUnsafeBytes { RecordShape($0) }, line)
    }

    @Test("finds the type and each message of a record, whatever quotes, backslashes and brackets the strings hold")
    func recordShape() throws {
        let tricky: [JSON] = [
            ["id": "a", "role": "user", "content": "quote \" backslash \\ \\\" brackets ]}{[ and \"m\":[ too"],
            ["id": "b", "role": "assistant", "content": [["type": "text", "text": "{\"id\":\"x\"}"]], "toolCalls": [["id": "c1"]]],
            ["id": "c", "role": "user", "content": "\\\\"],
        ]
        let (s, line) = shape(["t": "msg", "m": .array(tricky), "at": 5])
        let got = try #require(s)
        #expect(got.type == "msg" && got.messages.count == 3)
        for (k, r) in got.messages.enumerated() {
            let decoded = try line.withUnsafeBytes { try JSONCodec.decode(UnsafeRawBufferPointer(rebasing: $0[r])) }
            #expect(decoded == tricky[k])
        }
        #expect(got.message(at: got.messages[1].lowerBound + 3) == 1)
        #expect(got.message(at: 0) == nil)
        let cut = try #require(line.withUnsafeBytes { RecordShape($0, through: got.messages[0].upperBound - 2) })
        #expect(cut.type == "msg" && cut.messages == [got.messages[0]], "reads no message after the one asked for")
        let (tool, _) = shape(["t": "end", "call": "c1", "name": "x", "result": ["m": [1, 2]], "at": 1])
        #expect(tool?.type == "end" && tool?.messages.isEmpty == true, "an m nested deeper is not the record's")
        #expect(Array("00000000 {\"t\":\"msg\",\"m\":[{\"id\":\"a\"}".utf8).withUnsafeBytes { RecordShape($0) } == nil)
    }

    @Test("the searched text of JSON is its strings in order, without keys, numbers or type members")
    func searchedText() {
        #expect(SearchText.of("plain") == "plain")
        #expect(SearchText.of([["type": "text", "text": "one"], ["type": "image", "alt": "two", "width": 3]]) == "one\ntwo")
        #expect(SearchText.of(["path": "a.txt", "overwrite": true]) == "a.txt")
    }
}
