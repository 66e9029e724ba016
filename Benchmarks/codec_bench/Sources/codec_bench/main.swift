// codec_bench: parse and serialise the same JSON-RPC messages in-process with
//   - the product's codec (`JSONCodec.decode([UInt8])` / `JSONCodec.encode(JSON)`),
//   - raw jansson (`json_loadb` / `json_dumpb`, the same flags the codec uses),
//   - Foundation's `JSONSerialization` (untyped, impl "Foundation") and `JSONDecoder` /
//     `JSONEncoder` into Codable structs of the same shape (typed, impl "FoundationCodable"),
// and print one JSON object per figure on stdout. A sweep of `debug/blob`-shaped results from
// 1 KiB to 4 MiB (message "blobN") gives serialisation rate against payload size for every
// implementation (Benchmarks/throughput-vs-payload.png). MB/s is 10^6 bytes of the message per
// second. Each figure is the median of 5 batches of about 40 ms, the cases taking turns.
import CJansson
import Foundation
import JSON

@inline(__always) func nowNs() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

nonisolated(unsafe) var sink = 0

/// One figure to measure: `body` processes `bytes` bytes of a message once.
struct Case {
    var message: String
    var bytes: Int
    var impl: String
    var op: String
    var body: () -> Void
    var iterations = 1
    var samples: [Double] = []
}
nonisolated(unsafe) var cases: [Case] = []

func add(_ message: String, _ bytes: Int, _ impl: String, _ op: String, _ body: @escaping () -> Void) {
    cases.append(Case(message: message, bytes: bytes, impl: impl, op: op, body: body))
}

/// Calibrates every case to batches of ~40 ms, then runs `rounds` rounds in which every case
/// runs one batch in turn (so that a slow moment of the machine hits all cases alike), and
/// prints the median nanoseconds per call of each.
func runAll(rounds: Int = 5) {
    for i in cases.indices {
        let body = cases[i].body
        body()
        var iters = 1
        while true {
            let t0 = nowNs()
            for _ in 0..<iters { body() }
            let dt = nowNs() - t0
            if dt > 10_000_000 { iters = max(1, Int(Double(iters) * 40_000_000 / Double(dt))); break }
            iters *= 4
        }
        cases[i].iterations = iters
    }
    for _ in 0..<rounds {
        for i in cases.indices {
            let body = cases[i].body, iters = cases[i].iterations
            let t0 = nowNs()
            for _ in 0..<iters { body() }
            cases[i].samples.append(Double(nowNs() - t0) / Double(iters))
        }
    }
    for c in cases {
        let sorted = c.samples.sorted()
        let ns = sorted[sorted.count / 2]
        let mbps = Double(c.bytes) / ns * 1e3
        print(#"{"test":"codec","message":"\#(c.message)","bytes":\#(c.bytes),"impl":"\#(c.impl)","op":"\#(c.op)","ns_per_op":\#(String(format: "%.1f", ns)),"mb_per_s":\#(String(format: "%.1f", mbps)),"rounds":\#(c.samples.count)}"#)
    }
}

// ---------- the messages ----------
let small = Array(#"{"jsonrpc":"2.0","id":12345,"method":"fs/read","params":{"path":"src/app/main.swift","offset":0,"length":4096}}"#.utf8)

func fileResult() -> [UInt8] {
    let lines = [
        "import Foundation\n",
        "\n",
        "/// Loads the \"settings\" file and returns its entries.\n",
        "func loadSettings(at path: String) throws -> [String: String] {\n",
        "\tlet text = try String(contentsOfFile: path, encoding: .utf8)\n",
        "\tvar out: [String: String] = [:]\n",
        "\tfor line in text.split(separator: \"\\n\") where !line.hasPrefix(\"#\") {\n",
        "\t\tlet parts = line.split(separator: \"=\", maxSplits: 1)\n",
        "\t\tif parts.count == 2 { out[String(parts[0])] = String(parts[1]) }\n",
        "\t}\n",
        "\treturn out\n",
        "}\n",
    ]
    var content = ""
    var i = 0
    while true {
        let candidate = content + lines[i % lines.count]
        let obj: JSON = ["jsonrpc": "2.0", "id": 7, "result": [
            "path": "src/app/Settings.swift", "size": JSON(candidate.utf8.count),
            "modified": "2025-11-22T11:04:00Z", "encoding": "utf-8", "content": JSON(candidate)]]
        if JSONCodec.encode(obj).count > 4096 { break }
        content = candidate
        i += 1
    }
    let obj: JSON = ["jsonrpc": "2.0", "id": 7, "result": [
        "path": "src/app/Settings.swift", "size": JSON(content.utf8.count),
        "modified": "2025-11-22T11:04:00Z", "encoding": "utf-8", "content": JSON(content)]]
    return JSONCodec.encode(obj)
}

let blobSize = 1 << 20
// The same text the server's `debug/blob` returns (quotes and newlines, so escaping counts).
let blobLine = Array("The quick brown fox \"jumps\" over the lazy dog.\n".utf8)
let blobText = String(decoding: (0..<blobSize).map { blobLine[$0 % blobLine.count] }, as: UTF8.self)
let blob = JSONCodec.encode(["jsonrpc": "2.0", "id": 7, "result": ["data": JSON(blobText)]])

let messages: [(String, [UInt8])] = [("small", small), ("file4k", fileResult()), ("string1m", blob)]

JSONCodec.prepareForThreads()
let loadFlags = wb_json_load_flags()
let dumpFlags = wb_json_dump_flags()

for (name, bytes) in messages {
    let n = bytes.count
    // --- the product's codec ---
    let value = try! JSONCodec.decode(bytes)
    precondition(try! JSONCodec.decode(JSONCodec.encode(value)) == value, "codec round trip differs")
    add(name, n, "JSONCodec", "parse") { sink &+= (try! JSONCodec.decode(bytes)).typeName.count }
    add(name, n, "JSONCodec", "dump") { sink &+= JSONCodec.encode(value).count }
    add(name, n, "JSONCodec", "parse+dump") { sink &+= JSONCodec.encode(try! JSONCodec.decode(bytes)).count }

    // --- raw jansson (buffers live for the whole run) ---
    let src = UnsafeMutablePointer<CChar>.allocate(capacity: n)
    bytes.withUnsafeBytes { raw in UnsafeMutableRawPointer(src).copyMemory(from: raw.baseAddress!, byteCount: n) }
    let cap = n * 2 + 64
    let dst = UnsafeMutablePointer<CChar>.allocate(capacity: cap)
    var err = json_error_t()
    let tree = json_loadb(src, n, loadFlags, &err)!
    precondition(json_dumpb(tree, dst, cap, dumpFlags) == n, "jansson dump size differs")
    add(name, n, "jansson", "parse") {
        var e = json_error_t()
        let t = json_loadb(src, n, loadFlags, &e)!
        sink &+= Int(wb_json_typeof(t).rawValue)
        wb_json_decref(t)
    }
    add(name, n, "jansson", "dump") { sink &+= json_dumpb(tree, dst, cap, dumpFlags) }
    add(name, n, "jansson", "parse+dump") {
        var e = json_error_t()
        let t = json_loadb(src, n, loadFlags, &e)!
        sink &+= json_dumpb(t, dst, cap, dumpFlags)
        wb_json_decref(t)
    }

    // --- Foundation, typed (Codable) ---
    addCodable(name, bytes)

    // --- Foundation ---
    let data = Data(bytes)
    nonisolated(unsafe) let object = try! JSONSerialization.jsonObject(with: data)
    add(name, n, "Foundation", "parse") {
        let o = try! JSONSerialization.jsonObject(with: data)
        sink &+= (o as? [String: Any])?.count ?? 0
    }
    add(name, n, "Foundation", "dump") {
        sink &+= (try! JSONSerialization.data(withJSONObject: object, options: [.withoutEscapingSlashes])).count
    }
    add(name, n, "Foundation", "parse+dump") {
        let o = try! JSONSerialization.jsonObject(with: data)
        sink &+= (try! JSONSerialization.data(withJSONObject: o, options: [.withoutEscapingSlashes])).count
    }
}

// The ceiling for the server's large payload: jansson's json_dumpb of the bare 1 MiB string
// value (the bytes the server must produce: quotes, escapes), into a buffer already sized.
do {
    var text = blobText
    let str: UnsafeMutablePointer<json_t> = text.withUTF8 { u in
        json_stringn_nocheck(UnsafeRawPointer(u.baseAddress!).assumingMemoryBound(to: CChar.self), u.count)
    }
    let cap = blobSize * 2
    let dst = UnsafeMutablePointer<CChar>.allocate(capacity: cap)
    let flags = dumpFlags | Int(JSON_ENCODE_ANY)
    let size = json_dumpb(str, dst, cap, flags)
    add("string1m", size, "jansson", "dumpb_string_value") { sink &+= json_dumpb(str, dst, cap, flags) }
}

// The same for a `loadFile` range of 1 MiB of binary bytes with `encoding: "base64"`: the
// string value holding their base64 text (no escapes). Benchmarks/README.md turns both into
// MB/s of file bytes (1 MiB per call) as the ceiling of reading files through JSON.
do {
    var rng: UInt64 = 0x9E37_79B9_7F4A_7C15
    let raw = Data((0..<blobSize).map { _ -> UInt8 in
        rng ^= rng >> 12; rng ^= rng << 25; rng ^= rng >> 27
        return UInt8(truncatingIfNeeded: (rng &* 2_685_821_657_736_338_717) >> 56)
    })
    var text = raw.base64EncodedString()
    let str: UnsafeMutablePointer<json_t> = text.withUTF8 { u in
        json_stringn_nocheck(UnsafeRawPointer(u.baseAddress!).assumingMemoryBound(to: CChar.self), u.count)
    }
    let cap = blobSize * 2
    let dst = UnsafeMutablePointer<CChar>.allocate(capacity: cap)
    let flags = dumpFlags | Int(JSON_ENCODE_ANY)
    let size = json_dumpb(str, dst, cap, flags)
    add("base64_1m", size, "jansson", "dumpb_string_value") { sink &+= json_dumpb(str, dst, cap, flags) }
}

// Serialisation rate against payload size: a `debug/blob`-shaped result whose string is
// `size` bytes of the blob text (quotes and newlines to escape), dumped by every implementation
// from a tree built once; "parse" too for jansson and JSONCodec.
for size in [1 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20, 4 << 20] {
    let text = String(decoding: (0..<size).map { blobLine[$0 % blobLine.count] }, as: UTF8.self)
    let value: JSON = ["jsonrpc": "2.0", "id": 7, "result": ["data": JSON(text)]]
    let bytes = JSONCodec.encode(value)
    let n = bytes.count, name = "blob\(size)"
    add(name, n, "JSONCodec", "dump") { sink &+= JSONCodec.encode(value).count }
    add(name, n, "JSONCodec", "parse") { sink &+= (try! JSONCodec.decode(bytes)).typeName.count }
    let src = UnsafeMutablePointer<CChar>.allocate(capacity: n)
    bytes.withUnsafeBytes { raw in UnsafeMutableRawPointer(src).copyMemory(from: raw.baseAddress!, byteCount: n) }
    let cap = n * 2 + 64
    let dst = UnsafeMutablePointer<CChar>.allocate(capacity: cap)
    var err = json_error_t()
    let tree = json_loadb(src, n, loadFlags, &err)!
    add(name, n, "jansson", "dump") { sink &+= json_dumpb(tree, dst, cap, dumpFlags) }
    add(name, n, "jansson", "parse") {
        var e = json_error_t()
        let t = json_loadb(src, n, loadFlags, &e)!
        sink &+= Int(wb_json_typeof(t).rawValue)
        wb_json_decref(t)
    }
    nonisolated(unsafe) let object = try! JSONSerialization.jsonObject(with: Data(bytes))
    add(name, n, "Foundation", "dump") {
        sink &+= (try! JSONSerialization.data(withJSONObject: object, options: [.withoutEscapingSlashes])).count
    }
    let typed = BlobResponse(jsonrpc: "2.0", id: 7, result: .init(data: text))
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.withoutEscapingSlashes]
    add(name, n, "FoundationCodable", "dump") { sink &+= (try! encoder.encode(typed)).count }
}

runAll()

// Sanity note: scalars at the top level need JSON_ENCODE_ANY in jansson.
if JSONCodec.encode(JSON.int(1)).isEmpty {
    FileHandle.standardError.write("codec_bench: note: JSONCodec.encode(.int(1)) returned no bytes (top-level scalar)\n".data(using: .utf8)!)
}
FileHandle.standardError.write("codec_bench: sink \(sink)\n".data(using: .utf8)!)
