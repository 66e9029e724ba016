import JSON
import SystemSupport
import Workspace

/// `listFiles` entries as JSON text: the same members in the same order as `FileStatus.entry`
/// (`path, name, type, size, modified, etag, state`) and the same bytes as encoding those
/// values, written without building them (`RecordArrayWriter`).
///
/// Entries come in runs that share a folder, so each entry's path is its run's folder prefix
/// (joined once per run) written before its name. A page of at least `parallelAt` entries is
/// written in halves on two threads, joined in order.
enum ListEntries {
    static let keys = ["path", "name", "type", "size", "modified", "etag", "state"]
    static let parallelAt = 2048

    static func encoded(_ runs: [ListRun]) -> EncodedJSON {
        let total = runs.reduce(0) { $0 + $1.count }
        let workers = total >= parallelAt ? min(Parallel.cores, 2) : 1
        let parts = (0..<workers).map { _ in RecordArrayWriter(keys: keys, capacity: total / workers * 170 + 64) }
        let box = Box(runs: runs, parts: parts)
        Parallel.run(workers) { w in
            let lo = total * w / workers, hi = total * (w + 1) / workers
            write(box.runs, from: lo, to: hi, into: box.parts[w])
        }
        return .array(parts)
    }

    /// Writes the entries with offsets `lo..<hi` (counted over all runs).
    static func write(_ runs: [ListRun], from lo: Int, to hi: Int, into out: RecordArrayWriter) {
        var offset = 0
        for run in runs {
            let start = max(lo, offset), end = min(hi, offset + run.count)
            defer { offset += run.count }
            guard start < end else { continue }
            let prefix = run.folder.isRoot ? "" : run.folder.string + "/"
            for i in (start - offset)..<(end - offset) {
                let e = run[i]
                out.beginRecord()
                out.string(prefix, e.name)
                out.string(e.name)
                out.string(e.type.rawValue)
                out.int(e.size)
                out.string(count: 24) { Timestamp.write(nanos: e.modifiedNanos, into: $0) }
                out.string(count: 16) { e.writeEtag(into: $0) }
                out.string(e.state)
                out.endRecord()
            }
        }
    }

    /// The runs and per-thread writers, shared read-only (each writer used by one thread).
    private final class Box: @unchecked Sendable {
        let runs: [ListRun]
        let parts: [RecordArrayWriter]
        init(runs: [ListRun], parts: [RecordArrayWriter]) {
            self.runs = runs
            self.parts = parts
        }
    }
}
