import JSONRPC

/// The server's method tables, indexed by name.
///
/// A name declared twice is a programming error (which declaration would answer depended on
/// registration order): building the table stops the process with a message naming it, so the
/// first test that starts a server fails.
package enum MethodIndex {
    package static func byName(_ methods: [Method], table: String) -> [String: Method] {
        Dictionary(methods.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in
            fatalError("the \(table) method '\(first.name)' is declared twice")
        })
    }
}
