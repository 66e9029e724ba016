import JSON
import Testing

@Suite("Reading a document a value at a time")
struct JSONStreamReaderTests {
    private func walk(_ text: String) throws(JSONDecodeError) -> (members: [String: JSON], elements: [JSON]) {
        var r = JSONStreamReader(Array(text.utf8))
        var members: [String: JSON] = [:]
        var elements: [JSON] = []
        try r.enterObject()
        while let key = try r.nextKey() {
            if key == "list", r.enterArray() {
                while let e = try r.nextElement() { elements.append(e) }
            } else {
                members[key] = try r.value()
            }
        }
        try r.finish()
        return (members, elements)
    }

    @Test("an object's members and one array's elements come out as jansson reads them whole")
    func agreesWithDecode() throws {
        let text = #" { "a" : 1 , "list" : [ {"id":"x","n":[1,2]} , "s\u00e9" , 12.5 , null , true ] , "b" : {"c":[]}, "d":-7 } "#
        let got = try walk(text)
        let whole = try JSONCodec.decode(text)
        #expect(got.members["a"] == whole["a"] && got.members["b"] == whole["b"] && got.members["d"] == whole["d"])
        #expect(got.elements == whole["list"]?.arrayValue)
        #expect(try walk(#"{"list":[]}"#).elements.isEmpty)
        #expect(try walk("{}").members.isEmpty)
    }

    @Test("a position kept while walking starts a reader that reads the same elements again, skipped ones included")
    func positions() throws {
        let bytes = Array(#"{"list":[1,"two",{"three":3}],"after":true}"#.utf8)
        var r = JSONStreamReader(bytes)
        try r.enterObject()
        #expect(try r.nextKey() == "list")
        let entered = r.enterArray()
        #expect(entered)
        let start = r.position
        var skipped = 0
        while try r.skipElement() { skipped += 1 }
        #expect(skipped == 3)
        #expect(try r.nextKey() == "after")
        #expect(try r.value() == true)
        #expect(try r.nextKey() == nil)
        try r.finish()
        var again = JSONStreamReader(bytes, at: start)
        var seen: [JSON] = []
        while let e = try again.nextElement() { seen.append(e) }
        #expect(seen == [1, "two", ["three": 3]])
    }

    @Test("broken syntax, truncation, bad values and trailing bytes are errors", arguments: [
        #"{"a" 1}"#, #"{"a":1 "b":2}"#, #"{"list":[1 2]}"#, #"{"list":[1,]}"#, #"{"a":1"#, #"{"list":[1,2"#,
        #"{"a":NaN}"#, #"{"a":1e999}"#, #"{"a":{"k":1,"k":2}}"#, #"{"a":1} x"#, #"{a:1}"#, "", "[1]",
    ])
    func refusals(text: String) {
        #expect(throws: JSONDecodeError.self) { _ = try walk(text) }
    }
}
