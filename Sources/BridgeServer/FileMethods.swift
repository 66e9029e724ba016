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
    static let result = ResultShape.object(FileStatus.writeResultFields)
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
    static func handle(_ p: Params, _ call: Call) throws -> JSON {
        try call.services.workspace().save(p.path, contents: p.data, options: p.options).writeResult
    }
}

enum AppendFile: MethodDeclaration {
    static let method = "appendFile"
    static let result = ResultShape.object(FileStatus.writeResultFields)
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
    static func handle(_ p: Params, _ call: Call) throws -> JSON {
        try call.services.workspace().append(p.path, contents: p.data, createParents: p.createParents).writeResult
    }
}

enum LoadFile: MethodDeclaration {
    static let method = "loadFile"
    static let result = ResultShape.object(["path", "data", "encoding", "size", "etag", "modified", "offset", "length", "eof",
                                            "nextOffset", "startLine", "lineCount", "nextLine"])
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
    static func handle(_ p: Params, _ call: Call) throws -> JSON {
        let ws = try call.services.workspace()
        do {
            if let window = p.lines {
                let r = try ws.readLines(p.path, window, maxBytes: FileMethods.maxReadBytes, refuseBinary: p.encoding == .utf8)
                var o = try loaded(r.status, r.bytes, offset: r.offset, eof: r.eof, encoding: p.encoding)
                o["lineCount"] = .int(Int64(r.lineCount))
                if let first = r.firstLine { o["startLine"] = .int(Int64(first)) }
                if let next = r.nextLine { o["nextLine"] = .int(Int64(next)) }
                return .object(o)
            }
            let r = try ws.read(p.path, offset: p.offset, length: p.length, maxBytes: FileMethods.maxReadBytes,
                                refuseBinary: p.encoding == .utf8)
            return .object(try loaded(r.status, r.bytes, offset: r.offset, eof: r.eof, encoding: p.encoding))
        } catch {
            // Ask the engine for it (iCloud on Apple systems); the client retries after retryAfterMs.
            if error.code == .notDownloaded { ICloudContainer.startDownloading(ws.rootPath + "/" + p.path.string) }
            throw error
        }
    }

    /// The result's common part: the bytes in `encoding`, where they start, and where the next
    /// window starts (`nextOffset`, absent when the file ended).
    static func loaded(_ status: FileStatus, _ bytes: [UInt8], offset: Int64, eof: Bool,
                       encoding: ParamReader.Encoding) throws(WorkspaceError) -> JSONObject {
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
        var o: JSONObject = ["path": .string(status.path.string), "data": .string(data), "encoding": .string(encoding.rawValue),
                             "size": .int(status.size), "etag": .string(status.etag), "modified": .string(status.modified),
                             "offset": .int(offset), "length": .int(Int64(length)), "eof": .bool(end >= status.size)]
        if end < status.size { o["nextOffset"] = .int(end) }
        return o
    }
}

enum GetFileInfo: MethodDeclaration {
    static let method = "getFileInfo"
    static let result = ResultShape.object(["path", "name", "type", "size", "created", "modified", "etag", "mode", "state", "sha256"])
    struct Params: MethodParams {
        var path: WorkspacePath
        var sha256: Bool
        init(_ p: ParamReader) throws {
            path = try p.path("path")
            sha256 = try p.choice("hash", ["sha256"]) != nil
        }
    }
    static func schedule(_ p: Params) -> Schedule { .claims([.read(p.path)]) }
    static func handle(_ p: Params, _ call: Call) throws -> JSON {
        let (s, sha) = try call.services.workspace().info(p.path, sha256: p.sha256, isCancelled: { call.isCancelled })
        var o: JSONObject = ["path": .string(s.path.string), "name": .string(s.path.name), "type": .string(s.type.rawValue),
                             "size": .int(s.size)]
        if let c = s.created { o["created"] = .string(c) }
        o["modified"] = .string(s.modified)
        o["etag"] = .string(s.etag)
        o["mode"] = .string(s.modeString)
        o["state"] = .string(s.state)
        if let sha { o["sha256"] = .string(sha) }
        return .object(o)
    }
}

enum DeleteFile: MethodDeclaration {
    static let method = "deleteFile"
    static let result = ResultShape.object(["path", "deleted"])
    struct Params: MethodParams {
        var path: WorkspacePath
        var recursive: Bool
        init(_ p: ParamReader) throws {
            path = try p.path("path")
            recursive = try p.bool("recursive") ?? false
        }
    }
    static func schedule(_ p: Params) -> Schedule { .claims([.write(p.path)]) }
    static func handle(_ p: Params, _ call: Call) throws -> JSON {
        try call.services.workspace().delete(p.path, recursive: p.recursive, isCancelled: { call.isCancelled })
        return ["path": .string(p.path.string), "deleted": true]
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
    static let result = ResultShape.object(["from", "to", "type", "size", "etag", "modified", "skippedEntries"])
    static func schedule(_ p: TransferParams) -> Schedule { .claims([.write(p.from), .write(p.to)]) }
    static func handle(_ p: TransferParams, _ call: Call) throws -> JSON {
        moved(p.from, try call.services.workspace().move(from: p.from, to: p.to, overwrite: p.overwrite))
    }

    static func moved(_ from: WorkspacePath, _ s: FileStatus) -> JSON {
        ["from": .string(from.string), "to": .string(s.path.string), "type": .string(s.type.rawValue), "size": .int(s.size),
         "etag": .string(s.etag), "modified": .string(s.modified)]
    }
}

enum CopyFile: MethodDeclaration {
    static let method = "copyFile"
    static let result = ResultShape.object(["from", "to", "type", "size", "etag", "modified", "skippedEntries"])
    static func schedule(_ p: TransferParams) -> Schedule { .claims([.read(p.from), .write(p.to)]) }
    /// `moveFile`'s result plus every entry of a copied folder that was left out. A folder copy
    /// reports progress ("copied N of M files (X of Y MiB)") after each file, rate-limited.
    static func handle(_ p: TransferParams, _ call: Call) throws -> JSON {
        let progress = call.progress
        progress?.begin(title: "Copying \(p.from.string)", percentage: 0)
        let r = try call.services.workspace().copy(from: p.from, to: p.to, overwrite: p.overwrite, isCancelled: { call.isCancelled },
                                                   progress: { c in progress?.report(message: message(c), percentage: percentage(c)) })
        call.logger.debug("copy \(p.from.string) to \(p.to.string): \(r.status.type == .directory ? "a folder" : "\(r.status.size) bytes"), \(r.skipped.count) entries skipped")
        guard case .object(var o) = MoveFile.moved(p.from, r.status) else { return MoveFile.moved(p.from, r.status) }
        o["skippedEntries"] = skipped(r.skipped)
        return .object(o)
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

    /// `skipped` entries as the schema's `SkippedEntry`: path, type and the code reading it would answer.
    static func skipped(_ entries: [SkippedEntry]) -> JSON {
        .array(entries.map { ["path": .string($0.path.string), "type": .string($0.type.rawValue), "reason": .string($0.reason.rawValue)] })
    }
}

enum CreateFolder: MethodDeclaration {
    static let method = "createFolder"
    static let result = ResultShape.object(["path", "type", "modified"])
    struct Params: MethodParams {
        var path: WorkspacePath
        init(_ p: ParamReader) throws { path = try p.path("path") }
    }
    static func schedule(_ p: Params) -> Schedule { .claims([.write(p.path)]) }
    static func handle(_ p: Params, _ call: Call) throws -> JSON {
        let s = try call.services.workspace().createFolder(p.path)
        return ["path": .string(s.path.string), "type": "directory", "modified": .string(s.modified)]
    }
}
