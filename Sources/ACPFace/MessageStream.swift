import JSON
import JSONRPC
import SystemSupport

/// Reads newline-delimited JSON-RPC messages from a file descriptor until end of input.
///
/// Guarantees: every complete line is handed to `onMessage` as a parsed value, in order; a line
/// that is not JSON, or is larger than `maxMessageBytes`, is handed to `onFault` (the stream goes
/// on with the next line); `onEnd` runs exactly once, after the last message, when the input ends
/// or fails. Runs on the calling thread.
public enum MessageStream {
    public static func read(fd: Int32, maxMessageBytes: Int,
                            onMessage: (JSON) -> Void, onFault: (String) -> Void, onEnd: () -> Void) {
        var decoder = FrameDecoder(mode: .ndjson, maxMessageBytes: maxMessageBytes)
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        defer { onEnd() }
        while true {
            let n = buffer.withUnsafeMutableBytes { FileIO.read(fd, into: $0) }
            guard n > 0 else { return }
            buffer.withUnsafeBytes { decoder.append(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
            while let event = decoder.next() {
                switch event {
                case .message(let range):
                    let parsed: Result<JSON, JSONDecodeError> = decoder.withBody(range) { body in
                        do throws(JSONDecodeError) { return .success(try JSONCodec.decode(body)) } catch { return .failure(error) }
                    }
                    switch parsed {
                    case .success(let json): onMessage(json)
                    case .failure(let e): onFault("not JSON: \(e.reason)")
                    }
                case .fault(let f):
                    onFault("\(f)")
                }
            }
        }
    }
}
