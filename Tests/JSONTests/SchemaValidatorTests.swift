import JSON
import Testing

@Suite("JSONSchemaValidator: the checks a tool call's arguments get")
struct SchemaValidatorTests {
    let etag: JSON = ["type": "string", "pattern": "^[0-9a-f]{16}$"]

    @Test("a pattern is searched like JSON Schema says, and a mismatch names the field and the pattern")
    func pattern() {
        let schema: JSON = ["type": "object", "properties": ["ifMatch": etag]]
        #expect(JSONSchemaValidator.validate(["ifMatch": "0123456789abcdef"], against: schema) == nil)
        let p = JSONSchemaValidator.validate(["ifMatch": "not-an-etag"], against: schema)
        #expect(p?.field == "ifMatch")
        #expect(p?.expected == "text matching ^[0-9a-f]{16}$")
        let unanchored: JSON = ["type": "string", "pattern": "[0-9]"]
        #expect(JSONSchemaValidator.validate("abc1", against: unanchored) == nil)
        #expect(JSONSchemaValidator.validate("abc", against: unanchored) != nil)
    }

    @Test("lengths count Unicode code points, not bytes or grapheme clusters")
    func codePoints() {
        let schema: JSON = ["type": "string", "maxLength": 2]
        #expect(JSONSchemaValidator.validate("日本", against: schema) == nil)
        #expect(JSONSchemaValidator.validate("e\u{301}", against: schema) == nil)       // one grapheme, two code points
        #expect(JSONSchemaValidator.validate("e\u{301}x", against: schema) != nil)
    }

    @Test("const, maxItems, oneOf and anyOf")
    func combinators() {
        #expect(JSONSchemaValidator.validate("sha256", against: ["const": "sha256"]) == nil)
        #expect(JSONSchemaValidator.validate("md5", against: ["const": "sha256"])?.expected == "\"sha256\"")
        let two: JSON = ["type": "array", "maxItems": 2]
        #expect(JSONSchemaValidator.validate([1, 2], against: two) == nil)
        #expect(JSONSchemaValidator.validate([1, 2, 3], against: two)?.expected == "a list of at most 2 items")
        let either: JSON = ["oneOf": [["type": "string"], ["type": "integer", "minimum": 0]]]
        #expect(JSONSchemaValidator.validate("x", against: either) == nil)
        #expect(JSONSchemaValidator.validate(3, against: either) == nil)
        #expect(JSONSchemaValidator.validate(-3, against: either) != nil)
        #expect(JSONSchemaValidator.validate(true, against: either) != nil)
        let overlapping: JSON = ["oneOf": [["type": "integer"], ["type": "number"]]]
        #expect(JSONSchemaValidator.validate(1, against: overlapping) != nil, "both match: not exactly one")
        let any: JSON = ["anyOf": [["type": "integer"], ["type": "number"]]]
        #expect(JSONSchemaValidator.validate(1, against: any) == nil)
    }
}
