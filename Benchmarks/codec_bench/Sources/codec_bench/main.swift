// codec_bench: parse and serialise the same JSON-RPC messages in-process with
//   - the product's codec (`JSONCodec.decode([UInt8])` / `JSONCodec.encode(JSON)`),
//   - raw jansson (`json_loadb` / `json_dumpb`, the same flags the codec uses),
//   - Foundation's `JSONSerialization`,
// and print one JSON object per figure on stdout. MB/s is 10^6 bytes of the message per
// second. Each figure is the median of 5 timed batches of about 60 ms each.
import CJansson
import Foundation
import JSON

@inline(__always) func nowNs() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

nonisolated(unsafe) var sink = 0

/// Runs `body` in batches; returns the median nanoseconds per call.
func timePerCall(_ body: () -> Void) -> Double {
    body()
    var iters = 1
    while true {  // calibrate a batch of ~60 ms
        let t0 = nowNs()
        for _ in 0..<iters { body() }
        let dt = nowNs() - t0
        if dt > 20_000_000 { iters = max(1, Int(Double(iters) * 60_000_000 / Double(dt))); break }
        iters *= 4
    }
    var samples: [Double] = []
    for _ in 0..<5 {
        let t0 = nowNs()
        for _ in 0..<iters { body() }
        samples.append(Double(nowNs() - t0) / Double(iters))
    }
    samples.sort()
    return samples[2]
}

func emit(_ message: String, _ bytes: Int, _ impl: String, _ op: String, _ ns: Double) {
    let mbps = Double(bytes) / ns * 1e3
    print(#"{"test":"codec","message":"\#(message)","bytes":\#(bytes),"impl":"\#(impl)","op":"\#(op)","ns_per_op":\#(String(format: "%.1f", ns)),"mb_per_s":\#(String(format: "%.1f", mbps))}"#)
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
    emit(name, n, "JSONCodec", "parse", timePerCall { sink &+= (try! JSONCodec.decode(bytes)).typeName.count })
    emit(name, n, "JSONCodec", "dump", timePerCall { sink &+= JSONCodec.encode(value).count })
    emit(name, n, "JSONCodec", "parse+dump", timePerCall {
        sink &+= JSONCodec.encode(try! JSONCodec.decode(bytes)).count
    })

    // --- raw jansson ---
    var out = [UInt8](repeating: 0, count: n * 2 + 64)
    bytes.withUnsafeBufferPointer { inp in
        out.withUnsafeMutableBufferPointer { o in
            let src = UnsafeRawPointer(inp.baseAddress!).assumingMemoryBound(to: CChar.self)
            let dst = UnsafeMutableRawPointer(o.baseAddress!).assumingMemoryBound(to: CChar.self)
            var err = json_error_t()
            let tree = json_loadb(src, n, loadFlags, &err)!
            defer { wb_json_decref(tree) }
            precondition(json_dumpb(tree, dst, o.count, dumpFlags) == n, "jansson dump size differs")
            emit(name, n, "jansson", "parse", timePerCall {
                var e = json_error_t()
                let t = json_loadb(src, n, loadFlags, &e)!
                sink &+= Int(wb_json_typeof(t).rawValue)
                wb_json_decref(t)
            })
            emit(name, n, "jansson", "dump", timePerCall { sink &+= json_dumpb(tree, dst, o.count, dumpFlags) })
            emit(name, n, "jansson", "parse+dump", timePerCall {
                var e = json_error_t()
                let t = json_loadb(src, n, loadFlags, &e)!
                sink &+= json_dumpb(t, dst, o.count, dumpFlags)
                wb_json_decref(t)
            })
        }
    }

    // --- Foundation ---
    let data = Data(bytes)
    let object = try! JSONSerialization.jsonObject(with: data)
    emit(name, n, "Foundation", "parse", timePerCall {
        let o = try! JSONSerialization.jsonObject(with: data)
        sink &+= (o as? [String: Any])?.count ?? 0
    })
    emit(name, n, "Foundation", "dump", timePerCall {
        sink &+= (try! JSONSerialization.data(withJSONObject: object, options: [.withoutEscapingSlashes])).count
    })
    emit(name, n, "Foundation", "parse+dump", timePerCall {
        let o = try! JSONSerialization.jsonObject(with: data)
        sink &+= (try! JSONSerialization.data(withJSONObject: o, options: [.withoutEscapingSlashes])).count
    })
}

// The ceiling for the server's large payload: jansson's json_dumpb of the bare 1 MiB string
// value (the bytes the server must produce: quotes, escapes), into a buffer already sized.
do {
    var text = blobText
    let str: UnsafeMutablePointer<json_t> = text.withUTF8 { u in
        json_stringn_nocheck(UnsafeRawPointer(u.baseAddress!).assumingMemoryBound(to: CChar.self), u.count)
    }
    defer { wb_json_decref(str) }
    var out = [UInt8](repeating: 0, count: blobSize * 2)
    let flags = dumpFlags | Int(JSON_ENCODE_ANY)
    out.withUnsafeMutableBufferPointer { o in
        let dst = UnsafeMutableRawPointer(o.baseAddress!).assumingMemoryBound(to: CChar.self)
        let size = json_dumpb(str, dst, o.count, flags)
        emit("string1m", size, "jansson", "dumpb_string_value", timePerCall { sink &+= json_dumpb(str, dst, o.count, flags) })
    }
}

// Sanity note: scalars at the top level need JSON_ENCODE_ANY in jansson.
if JSONCodec.encode(JSON.int(1)).isEmpty {
    FileHandle.standardError.write("codec_bench: note: JSONCodec.encode(.int(1)) returned no bytes (top-level scalar)\n".data(using: .utf8)!)
}
FileHandle.standardError.write("codec_bench: sink \(sink)\n".data(using: .utf8)!)
