/// A byte buffer reused across calls (one per thread: it is not thread-safe), so a loop that needs
/// a large temporary buffer each time (a journal read, a case-folded copy) pays for its memory
/// once: fresh memory of that size is mapped anew by `malloc` and faulted in page by page on every
/// use, which costs more than the work on it.
public final class ByteScratch {
    private var storage = UnsafeMutableRawBufferPointer(start: nil, count: 0)

    public init() {}

    deinit { storage.deallocate() }

    /// At least `count` bytes (their content is whatever the last use left), valid until the next call.
    public func reserve(_ count: Int) -> UnsafeMutableRawBufferPointer {
        if storage.count < count {
            storage.deallocate()
            storage = .allocate(byteCount: max(count, storage.count * 2), alignment: 16)
        }
        return UnsafeMutableRawBufferPointer(rebasing: storage[..<count])
    }
}
