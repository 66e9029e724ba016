import Workspace

/// The sync-artefact name parser and the iCloud stub reader.
///
/// Input: when byte 0 is even, the rest is a file name (invalid UTF-8 decoded with U+FFFD) to
/// classify; when odd, the rest is the content of an iCloud placeholder stub. Invariants:
/// - classification never crashes and is a pure function of the name;
/// - a placeholder's real name and a conflict copy's original name are names that can live
///   in the same folder: not empty, not `.` or `..`, without `/` or NUL, different from (and
///   shorter than) the name they were read from; a device, when named, is not empty;
/// - nothing that cannot be a base name (empty, holding `/` or NUL, over 1024 bytes) is an artefact;
/// - a parsed stub has a name as above and a size of at least 0.
public enum ArtefactNameTarget: FuzzTarget {
    public static let name = "artefact-names"

    public static func check(_ input: UnsafeRawBufferPointer) throws(FuzzFailure) {
        var reader = ByteReader(input)
        if reader.byte() & 1 == 0 {
            let name = String(decoding: reader.remaining, as: UTF8.self)
            let artefact = SyncArtefacts.classify(name)
            try require(SyncArtefacts.classify(name) == artefact, "classifying '\(name)' twice differs")
            let bytes = Array(name.utf8)
            if bytes.isEmpty || bytes.contains(47) || bytes.contains(0) || bytes.count > 1024 {
                try require(artefact == .none, "'\(name.prefix(80))' cannot be a base name, yet is \(artefact)")
            }
            switch artefact {
            case .none, .hidden: break
            case .placeholder(_, let real):
                try requireSibling(real, of: name, "placeholder")
            case .conflictCopy(let engine, let original, let device):
                try require(engine != .folder, "a conflict copy without an engine")
                try requireSibling(original, of: name, "conflict copy")
                if let device { try require(!device.isEmpty, "'\(name)' names an empty device") }
            }
        } else {
            guard let (name, size) = SyncArtefacts.parseICloudStub(Array(reader.remaining)) else { return }
            try require(size >= 0, "a stub with size \(size)")
            try requireName(name, "a stub")
        }
    }

    private static func requireSibling(_ other: String, of name: String, _ what: String) throws(FuzzFailure) {
        try requireName(other, "the \(what) '\(name)'")
        try require(other.utf8.count < name.utf8.count, "the \(what) '\(name)' stands for the longer '\(other)'")
    }

    private static func requireName(_ name: String, _ source: String) throws(FuzzFailure) {
        try require(!name.isEmpty && name != "." && name != ".." && !name.utf8.contains(47) && !name.utf8.contains(0),
                    "\(source) yields the impossible name '\(name)'")
    }
}
