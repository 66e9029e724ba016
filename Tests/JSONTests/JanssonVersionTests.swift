import Testing
@testable import JSON

/// What `workspace-bridge doctor` reports about the jansson library.
@Suite("The jansson library's version")
struct JanssonVersionTests {
    @Test("versions compare number by number, not as text", arguments: [
        ("2.9", "2.14", true), ("2.14", "2.9", false), ("2.14", "2.14", false), ("2.13.1", "2.14", true),
        ("2.14", "2.14.1", true), ("2.14.1", "2.14", false), ("3.0", "2.14", false),
    ])
    func ordering(running: String, built: String, older: Bool) {
        #expect(JanssonVersion.isOlder(running, than: built) == older)
    }

    @Test("the library in this process is the one the headers name, or newer")
    func running() {
        #expect(!JanssonVersion.running.isEmpty)
        #expect(!JanssonVersion.runningIsOlder)
    }
}
