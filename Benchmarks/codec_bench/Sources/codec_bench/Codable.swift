// Foundation's typed JSON (`JSONDecoder` / `JSONEncoder` with Codable structs), the way a Swift
// program without a JSON value type would read and write the same messages codec_bench times.
// Each struct has exactly the fields of its message, so parse + dump round-trips the content.
import Foundation

/// The `small` message: a request with a few scalar parameters.
struct SmallRequest: Codable {
    struct Params: Codable { var path: String; var offset: Int; var length: Int }
    var jsonrpc: String
    var id: Int
    var method: String
    var params: Params
}

/// The `file4k` message: a result holding a file's text and its metadata.
struct FileResponse: Codable {
    struct Result: Codable { var path: String; var size: Int; var modified: String; var encoding: String; var content: String }
    var jsonrpc: String
    var id: Int
    var result: Result
}

/// The `string1m` and `blobN` messages: a result holding one large string.
struct BlobResponse: Codable {
    struct Result: Codable { var data: String }
    var jsonrpc: String
    var id: Int
    var result: Result
}

/// Registers parse, dump and parse+dump of `bytes` as impl "FoundationCodable" for the message
/// `name` (one of small, file4k, string1m), decoding into the struct of that shape.
func addCodable(_ name: String, _ bytes: [UInt8]) {
    switch name {
    case "small": addCodable(name, bytes, as: SmallRequest.self)
    case "file4k": addCodable(name, bytes, as: FileResponse.self)
    default: addCodable(name, bytes, as: BlobResponse.self)
    }
}

private func addCodable<T: Codable>(_ name: String, _ bytes: [UInt8], as type: T.Type) {
    let data = Data(bytes)
    let decoder = JSONDecoder()
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.withoutEscapingSlashes]
    let value = try! decoder.decode(T.self, from: data)
    nonisolated(unsafe) let boxed = value
    add(name, bytes.count, "FoundationCodable", "parse") { sink &+= (try? decoder.decode(T.self, from: data)) == nil ? 0 : 1 }
    add(name, bytes.count, "FoundationCodable", "dump") { sink &+= (try! encoder.encode(boxed)).count }
    add(name, bytes.count, "FoundationCodable", "parse+dump") {
        sink &+= (try! encoder.encode(try! decoder.decode(T.self, from: data))).count
    }
}
