#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The loops every module needs around read(2) and write(2): they retry on EINTR and go on
/// after a short transfer. Failures are `false` or `nil` with `errno` set; each module turns
/// that into its own typed error.
public enum FileIO {
    /// Writes all of `bytes` at `offset` (pwrite), or at the current position when nil.
    public static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int64? = nil) -> Bool {
        guard let base = bytes.baseAddress else { return true }  // no start: nothing to write
        var done = 0
        while done < bytes.count {
            let n: Int
            if let offset {
                n = pwrite(fd, base + done, bytes.count - done, off_t(offset) + off_t(done))
            } else {
                n = write(fd, base + done, bytes.count - done)
            }
            if n < 0 { if errno == EINTR { continue }; return false }
            done += n
        }
        return true
    }

    public static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { writeAll(fd, $0) }
    }

    /// Reads into `buffer` once (retrying on EINTR): the bytes read, 0 at the end, -1 on failure.
    public static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        while true {
            let n = systemRead(fd, buffer.baseAddress, buffer.count)
            if n < 0 && errno == EINTR { continue }
            return n
        }
    }

    /// Up to `count` bytes at `offset`; fewer only where the file ends.
    public static func pread(_ fd: Int32, count: Int, offset: Int64) -> [UInt8]? {
        var failed = false
        let out = [UInt8](unsafeUninitializedCapacity: count) { buf, filled in
            guard let got = pread(fd, into: UnsafeMutableRawBufferPointer(buf), offset: offset) else { failed = true; filled = 0; return }
            filled = got
        }
        return failed ? nil : out
    }

    /// Fills `buffer` from `offset` (retrying on EINTR and short reads): the bytes read, fewer
    /// only where the file ends; nil on failure.
    public static func pread(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, offset: Int64) -> Int? {
        guard let base = buffer.baseAddress else { return 0 }  // no start: no room, nothing read
        var got = 0
        while got < buffer.count {
            let n = systemPread(fd, base + got, buffer.count - got, off_t(offset) + off_t(got))
            if n < 0 { if errno == EINTR { continue }; return nil }
            if n == 0 { break }
            got += n
        }
        return got
    }

    /// Everything from the current position to the end of the file.
    public static func readToEnd(_ fd: Int32) -> [UInt8]? { readToEnd(fd, limit: Int.max - 1) }

    /// Everything from the current position to the end of the file when that is at most `limit`
    /// bytes; nil with errno `EFBIG` when there is more, nil with errno set when reading fails.
    /// A regular file whose size already says it is too large is not read at all; otherwise
    /// (a pipe, a `/proc` file that says 0, a file growing while read) at most `limit + 1` bytes
    /// are ever held. A file that fits is read with one allocation, sized by `fstat`.
    public static func readToEnd(_ fd: Int32, limit: Int) -> [UInt8]? {
        precondition(limit >= 0 && limit < Int.max, "a read limit is a byte count")
        var st = stat()
        let size = fstat(fd, &st) == 0 ? max(Int(st.st_size), 0) : 65535
        if (st.st_mode & S_IFMT) == S_IFREG, size - max(Int(lseek(fd, 0, SEEK_CUR)), 0) > limit {  // too large by its size: not read
            errno = EFBIG
            return nil
        }
        var capacity = min(max(size, 4095), limit) + 1
        var out = [UInt8]()
        while true {
            let start = out.count
            out.append(contentsOf: repeatElement(0, count: capacity - start))
            let got = out.withUnsafeMutableBytes { b -> Int in
                var at = start
                while at < b.count {
                    let n = read(fd, into: UnsafeMutableRawBufferPointer(rebasing: b[at...]))
                    if n < 0 { return -1 }
                    if n == 0 { break }
                    at += n
                }
                return at
            }
            if got < 0 { return nil }
            if got < capacity { out.removeSubrange(got...); return out }
            if capacity > limit { errno = EFBIG; return nil }
            capacity = capacity > limit / 2 ? limit + 1 : capacity * 2
        }
    }

    /// The names in a folder, without `.` and `..`, in the order the file system gives them.
    public static func names(inFolder path: String) -> [String]? {
        guard let d = opendir(path) else { return nil }
        defer { closedir(d) }
        var names: [String] = []
        while let e = readdir(d) {
            let name = withUnsafeBytes(of: e.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// Flushes a folder's entries (new, renamed and removed names) to stable storage.
    @discardableResult
    public static func syncFolder(_ path: String) -> Bool {
        let d = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard d >= 0 else { return false }
        defer { close(d) }
        return fsync(d) == 0
    }
}

/// `strerror`'s text with the number, as every error message shows it: "No such file or
/// directory (errno 2)".
public func describeErrno(_ code: Int32) -> String {
    guard let s = strerror(code) else { return "errno \(code)" }
    return String(cString: s) + " (errno \(code))"
}

@inline(__always)
private func systemRead(_ fd: Int32, _ p: UnsafeMutableRawPointer?, _ n: Int) -> Int { read(fd, p, n) }

@inline(__always)
private func systemPread(_ fd: Int32, _ buf: UnsafeMutableRawPointer, _ n: Int, _ off: off_t) -> Int {
    pread(fd, buf, n, off)
}
