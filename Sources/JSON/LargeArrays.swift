#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CJansson
import Dispatch

/// Large arrays in encoded output, written by jansson on every core.
///
/// A listing page or a search result is one array of thousands of small objects; building
/// and dumping its jansson tree is most of the time such a reply takes, and it is serial. An
/// array of at least `threshold` elements is therefore cut into one part per core, each part
/// written by jansson on its own thread (`FlatObjectWriter`; jansson values are never shared
/// between threads), and the parts' text joined with `,` in place of the array: byte for byte
/// what one `json_dumpb` of the whole array writes in compact form. Arrays inside those parts
/// are dumped in their part, serially.
enum LargeArrays {
    static let threshold = 2048
    /// Elements per part at the least, so small arrays stay on one thread.
    static let minimumPart = 1024
    static let cores = max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))

    static func worthSplitting(_ count: Int) -> Bool {
        count >= threshold && cores > 1
    }

    /// The compact JSON text of `elements` as an array, `[` to `]`.
    static func encode(_ elements: [JSON]) -> [UInt8] {
        let parts = max(1, min(cores, elements.count / minimumPart))
        let results = Results(parts)
        DispatchQueue.concurrentPerform(iterations: parts) { k in
            let lo = elements.count * k / parts, hi = elements.count * (k + 1) / parts
            let writer = FlatObjectWriter(capacity: (hi - lo) * 160)
            for e in elements[lo..<hi] { writer.append(e) }
            results.set(k, writer.bytes())
        }
        var out: [UInt8] = [0x5B]
        out.reserveCapacity(results.totalCount + parts + 1)
        for k in 0..<parts {
            if k > 0 { out.append(0x2C) }
            out.append(contentsOf: results.get(k))  // each part is its elements, comma-separated
        }
        out.append(0x5D)
        return out
    }

    /// One slot per part, each written by exactly one thread, read after all have finished.
    private final class Results: @unchecked Sendable {
        private var slots: [[UInt8]]
        init(_ n: Int) { slots = Array(repeating: [], count: n) }
        func set(_ k: Int, _ v: [UInt8]) { slots[k] = v }
        func get(_ k: Int) -> [UInt8] { slots[k] }
        var totalCount: Int { slots.reduce(0) { $0 + $1.count } }
    }
}
