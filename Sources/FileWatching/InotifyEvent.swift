#if os(Linux)
import Glibc
import SystemSupport

/// One record of the inotify stream, decoded.
struct InotifyEvent: Equatable {
    var wd: Int32
    var mask: UInt32
    var cookie: UInt32
    /// The entry's name inside the watched directory, as its text (`EscapedName`: bytes that
    /// are not UTF-8 escaped); "" when the event is about the directory itself (or the queue,
    /// for `IN_Q_OVERFLOW`).
    var name: String

    /// Size of `struct inotify_event` without its trailing name.
    static let headerSize = 16

    /// Calls `body` for each complete record in `bytes` (as `read(2)` returns them: a
    /// 16-byte header, then `len` bytes of NUL-padded name).
    static func forEach(in bytes: UnsafeRawBufferPointer, _ body: (InotifyEvent) -> Void) {
        var offset = 0
        while offset + headerSize <= bytes.count {
            let wd = bytes.loadUnaligned(fromByteOffset: offset, as: Int32.self)
            let mask = bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
            let cookie = bytes.loadUnaligned(fromByteOffset: offset + 8, as: UInt32.self)
            let len = Int(bytes.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
            let nameStart = offset + headerSize
            guard nameStart + len <= bytes.count else { return }
            var nameBytes = UnsafeRawBufferPointer(rebasing: bytes[nameStart..<(nameStart + len)])
            if let nul = nameBytes.firstIndex(of: 0) {
                nameBytes = UnsafeRawBufferPointer(rebasing: nameBytes[..<nul])
            }
            var event = InotifyEvent(wd: wd, mask: mask, cookie: cookie, name: "")
            if !nameBytes.isEmpty {
                event.name = nameBytes.withMemoryRebound(to: UInt8.self) { EscapedName.text($0) }
            }
            body(event)
            offset = nameStart + len
        }
    }

    /// The record as the kernel would write it (name padded to 4 bytes); used to feed
    /// synthetic events through the same decoding path in tests.
    func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        let nameBytes = EscapedName.bytes(name)
        let len = nameBytes.isEmpty ? 0 : (nameBytes.count + 1 + 3) & ~3
        for value in [UInt32(bitPattern: wd), mask, cookie, UInt32(len)] {
            withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
        }
        bytes.append(contentsOf: nameBytes)
        bytes.append(contentsOf: repeatElement(0, count: len - nameBytes.count))
        return bytes
    }
}

/// The inotify mask bits as `UInt32` (Glibc imports them as `Int32`).
enum InotifyMask {
    static let access = UInt32(IN_ACCESS)
    static let modify = UInt32(IN_MODIFY)
    static let attrib = UInt32(IN_ATTRIB)
    static let closeWrite = UInt32(IN_CLOSE_WRITE)
    static let movedFrom = UInt32(IN_MOVED_FROM)
    static let movedTo = UInt32(IN_MOVED_TO)
    static let create = UInt32(IN_CREATE)
    static let delete = UInt32(IN_DELETE)
    static let deleteSelf = UInt32(IN_DELETE_SELF)
    static let moveSelf = UInt32(IN_MOVE_SELF)
    static let ignored = UInt32(IN_IGNORED)
    static let overflow = UInt32(IN_Q_OVERFLOW)
    static let isDir = UInt32(IN_ISDIR)
    static let onlyDir = UInt32(IN_ONLYDIR)
    static let dontFollow = UInt32(IN_DONT_FOLLOW)
    static let exclUnlink = UInt32(IN_EXCL_UNLINK)

    /// What every directory watch asks for.
    static let watched = create | movedTo | modify | closeWrite | attrib | delete | movedFrom
        | deleteSelf | exclUnlink
}
#endif
