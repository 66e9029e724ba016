import JSON
import JSONRPC
import Storage
import Workspace

/// The workspace file API: each method decodes its params once, claims the paths it touches,
/// calls one `Workspace` function and encodes the result.
package enum FileMethods {
    /// One read costs at most this many bytes of file (base64 makes it 4/3 on the wire).
    package static let maxReadBytes: Int64 = 16 << 20

    static let all: [any MethodDeclaration.Type] = [
        SaveFile.self, AppendFile.self, LoadFile.self, GetFileInfo.self, DeleteFile.self, MoveFile.self, CopyFile.self,
        CreateFolder.self, ListFiles.self, SearchFiles.self, WatchFiles.self, UnwatchFiles.self, GetFileUri.self,
        ImportFile.self, ExportFile.self,
    ]
}

enum SaveFile: MethodDeclaration {
    static let method = "saveFile"
    static let reaches: Set<Capability> = [.workspace]
    struct Params: MethodParams {
        var path: WorkspacePath
        var options: Workspace.SaveOptions
        var data: [UInt8]
        init(_ p: ParamReader) throws {
            path = try p.path("path")
            options = Workspace.SaveOptions(createParents: try p.bool("createParents") ?? true, ifMatch: try p.string("ifMatch"),
                                            exclusive: try p.bool("exclusive") ?? false)
            data = try p.payload()
        }
    }
    static func schedule(_ p: Params) -> Schedule { .claims([.write(p.path)]) }
    static func handle(_ p: Params, _ call: Call) throws -> WriteResult {
        WriteResult(try call.services.workspace().save(p.path, contents: p.data, options: p.options))
    }
}

enum AppendFile: MethodDeclaration {
    static let method = "appendFile"
    static let reaches: Set<Capability> = [.workspace]
    struct Params: MethodParams {
        var path: WorkspacePath
        var createParents: Bool
        var data: [UInt8]
        init(_ p: ParamReader) throws {
            path = try p.path("path")
            createParents = try p.bool("createParents") ?? true
            data = try p.payload()
        }
    }
    static func schedule(_ p: Params) -> Schedule { .claims([.write(p.path)]) }
    static func handle(_ p: Params, _ call: Call) throws -> WriteResult {
        WriteResult(try call.services.workspace().append(p.path, contents: p.data, createParents: p.createParents))
    }
}

enum LoadFile: MethodDeclaration {
    static let method = "loadFile"
    static let reaches: Set<Capability> = [.workspace]
    struct Params: MethodParams {
        var path: WorkspacePath
        var encoding: ParamReader.Encoding
        var offset: Int64
        var length: Int64?
        /// A line window instead of a byte range (nil: bytes).
        var lines: Workspace.LineWindow?
        init(_ p: ParamReader) throws {
            path = try p.path("path")
            encoding = try p.encoding()
            offset = try p.nonNegative("offset") ?? 0
            length = try p.nonNegative("length")
            lines = try p.lineWindow(offset: p.nonNegative("offset"), length: length)
        }
    }
    static func schedule(_ p: Params) -> Schedule { .claims([.read(p.path)]) }
    static func handle(_ p: Params, _ call: Call) throws -> LoadResult {
        let ws = try call.services.workspace()
        do {
            if let window = p.lines {
                let r = try ws.readLines(p.path, window, maxBytes: FileMethods.maxReadBytes, refuseBinary: p.encoding == .utf8)
                var o = try loaded(r.status, r.bytes, offset: r.offset, eof: r.eof, encoding: p.encoding)
                o.lineCount = r.lineCount
                o.startLine = r.firstLine
                o.nextLine = r.nextLine
                return o
            }
            let r = try ws.read(p.path, offset: p.offset, length: p.length, maxBytes: FileMethods.maxReadBytes,
                                refuseBinary: p.encoding == .utf8)
            return try loaded(r.status, r.bytes, offset: r.offset, eof: r.eof, encoding: p.encoding)
        } catch {
            // Ask the engine for it (iCloud on Apple systems); the client retries after retryAfterMs.
            if error.code == .notDownloaded { ICloudContainer.startDownloading(ws.rootPath + "/" + p.path.string) }
            throw error
        }
    }

    /// The result's common part: the bytes in `encoding`, where they start, and where the next
    /// window starts (`nextOffset`, absent when the file ended).
    static func loaded(_ status: FileStatus, _ bytes: [UInt8], offset: Int64, eof: Bool,
                       encoding: ParamReader.Encoding) throws(WorkspaceError) -> LoadResult {
        let data: String
        let length: Int
        switch encoding {
        case .base64:
            data = Base64.encode(bytes)
            length = bytes.count
        case .utf8:
            // A range may end inside a character (not at the end of the file): that character is left out.
            guard let text = bytes.withUnsafeBytes({ UTF8Text.text($0, allowTruncatedEnd: !eof) }) else {
                throw WorkspaceError(.notText, "'\(status.path)' is not UTF-8 text in this range: load it with encoding \"base64\"",
                                     path: status.path.string)
            }
            (data, length) = text
        }
        let end = offset + Int64(length)
        return LoadResult(path: status.path, data: data, encoding: encoding.rawValue, size: status.size, etag: status.etag,
                          modified: status.modified, offset: offset, length: Int64(length), eof: end >= status.size,
                          nextOffset: end < status.size ? end : nil)
    }
}

enum GetFileInfo: MethodDeclaration {
    static let method = "getFileInfo"
    static let reaches: Set<Capability> = [.workspace]
    struct Params: MethodParams {
        var path: WorkspacePath
        var sha256: Bool
        init(_ p: ParamReader) throws {
            path = try p.path("path")
            sha256 = try p.choice("hash", ["sha256"]) != nil
        }
    }
    static func schedule(_ p: Params) -> Schedule { .claims([.read(p.path)]) }
    static func handle(_ p: Params, _ call: Call) throws -> FileInfo {
        let (s, sha) = try call.services.workspace().info(p.path, sha256: p.sha256, isCancelled: { call.isCancelled })
        return FileInfo(status: s, sha256: sha)
    }
}

enum DeleteFile: MethodDeclaration {
    static let method = "deleteFile"
    static let reaches: Set<Capability> = [.workspace]
    struct Params: MethodParams {
        var path: WorkspacePath
        var recursive: Bool
        init(_ p: ParamReader) throws {
            path = try p.path("path")
            recursive = try p.bool("recursive") ?? false
        }
    }
    static func schedule(_ p: Params) -> Schedule { .claims([.write(p.path)]) }
    static func handle(_ p: Params, _ call: Call) throws -> Deleted {
        try call.services.workspace().delete(p.path, recursive: p.recursive, isCancelled: { call.isCancelled })
        return Deleted(path: p.path)
    }
}

/// `moveFile`'s and `copyFile`'s params.
struct TransferParams: MethodParams {
    var from: WorkspacePath
    var to: WorkspacePath
    var overwrite: Bool
    init(_ p: ParamReader) throws {
        from = try p.path("from")
        to = try p.path("to")
        overwrite = try p.bool("overwrite") ?? false
    }
}

enum MoveFile: MethodDeclaration {
    static let method = "moveFile"
    static let reaches: Set<Capability> = [.workspace]
    static func schedule(_ p: TransferParams) -> Schedule { .claims([.write(p.from), .write(p.to)]) }
    static func handle(_ p: TransferParams, _ call: Call) throws -> Transferred {
        Transferred(from: p.from, status: try call.services.workspace().move(from: p.from, to: p.to, overwrite: p.overwrite))
    }
}

enum CopyFile: MethodDeclaration {
    static let method = "copyFile"
    static let reaches: Set<Capability> = [.workspace]
    static func schedule(_ p: TransferParams) -> Schedule { .claims([.read(p.from), .write(p.to)]) }
    /// `moveFile`'s result plus every entry of a copied folder that was left out. A folder copy
    /// reports progress ("copied N of M files (X of Y MiB)") after each file, rate-limited.
    static func handle(_ p: TransferParams, _ call: Call) throws -> Transferred {
        let progress = call.progress
        progress?.begin(title: "Copying \(p.from.string)", percentage: 0)
        let r = try call.services.workspace().copy(from: p.from, to: p.to, overwrite: p.overwrite, isCancelled: { call.isCancelled },
                                                   progress: { c in progress?.report(message: message(c), percentage: percentage(c)) })
        call.logger.debug("copy \(p.from.string) to \(p.to.string): \(r.status.type == .directory ? "a folder" : "\(r.status.size) bytes"), \(r.skipped.count) entries skipped")
        return Transferred(from: p.from, status: r.status, skippedEntries: r.skipped.map(Skipped.init))
    }

    static func message(_ c: Workspace.CopyProgress) -> String {
        "copied \(c.filesCopied) of \(c.filesTotal) files (\(mib(c.bytesCopied)) of \(mib(c.bytesTotal)) MiB)"
    }

    /// By bytes when there are any (a file's share of the time is its size), else by files.
    static func percentage(_ c: Workspace.CopyProgress) -> Int {
        c.bytesTotal > 0 ? Int(c.bytesCopied * 100 / c.bytesTotal) : c.filesTotal > 0 ? c.filesCopied * 100 / c.filesTotal : 0
    }

    private static func mib(_ bytes: Int64) -> String {
        let tenths = bytes * 10 / (1 << 20)
        return "\(tenths / 10).\(tenths % 10)"
    }
}

enum CreateFolder: MethodDeclaration {
    static let method = "createFolder"
    static let reaches: Set<Capability> = [.workspace]
    struct Params: MethodParams {
        var path: WorkspacePath
        init(_ p: ParamReader) throws { path = try p.path("path") }
    }
    static func schedule(_ p: Params) -> Schedule { .claims([.write(p.path)]) }
    static func handle(_ p: Params, _ call: Call) throws -> FolderCreated {
        FolderCreated(status: try call.services.workspace().createFolder(p.path))
    }
}
