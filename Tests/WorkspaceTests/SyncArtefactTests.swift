#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
@testable import Workspace

/// One name and what it must classify as.
struct NameCase: Sendable, CustomTestStringConvertible {
    let name: String
    let expected: SyncArtefact
    init(_ name: String, _ expected: SyncArtefact) { self.name = name; self.expected = expected }
    var testDescription: String { name.debugDescription }
}

private func conflict(_ e: SyncEngine, _ original: String, _ device: String? = nil) -> SyncArtefact {
    .conflictCopy(e, originalName: original, device: device)
}

private let nameCases: [NameCase] = [
    // iCloud Drive placeholders (pre-Sonoma).
    NameCase(".report.pdf.icloud", .placeholder(.icloud, realName: "report.pdf")),
    NameCase("..gitignore.icloud", .placeholder(.icloud, realName: ".gitignore")),
    NameCase(".Résumé 2025.docx.icloud", .placeholder(.icloud, realName: "Résumé 2025.docx")),
    // Syncthing.
    NameCase("notes.sync-conflict-20250101-101010-ABCDEF2.md", conflict(.syncthing, "notes.md", "ABCDEF2")),
    NameCase("archive.tar.sync-conflict-20241231-235959-MFZWI3D.gz", conflict(.syncthing, "archive.tar.gz", "MFZWI3D")),
    NameCase("Makefile.sync-conflict-20230405-060708", conflict(.syncthing, "Makefile")),
    NameCase(".sync-conflict-20250101-101010-ABCDEFG.bashrc", conflict(.syncthing, ".bashrc", "ABCDEFG")),
    NameCase("report.sync-conflict-20250101-101010-.txt", conflict(.syncthing, "report.txt")),
    NameCase(".stfolder", .hidden(.syncthing)), NameCase(".stignore", .hidden(.syncthing)),
    NameCase(".stversions", .hidden(.syncthing)),
    NameCase(".syncthing.report.txt.tmp", .hidden(.syncthing)),
    NameCase(".syncthing.notes.md.wb-0123456789abcdef.tmp", .hidden(.syncthing)),
    NameCase("~syncthing~report.txt.tmp", .hidden(.syncthing)),
    // Nextcloud / ownCloud.
    NameCase("report (conflicted copy 2025-11-22 101010).txt", conflict(.nextcloud, "report.txt")),
    NameCase("report (conflicted copy Jane Doe 2025-11-22 101010).txt", conflict(.nextcloud, "report.txt", "Jane Doe")),
    NameCase("plan (conflicted copy j.doe 2025-11-22 101010)", conflict(.nextcloud, "plan", "j.doe")),
    NameCase("archive.tar (conflicted copy 2025-11-22 101010).gz", conflict(.nextcloud, "archive.tar.gz")),
    NameCase(".bashrc (conflicted copy 2025-11-22 101010)", conflict(.nextcloud, ".bashrc")),
    NameCase("Photo (case clash from 2025-11-22 101010).JPG", conflict(.nextcloud, "Photo.JPG")),
    NameCase("budget_conflict-20180101-121314.xlsx", conflict(.nextcloud, "budget.xlsx")),
    NameCase(".sync_0123456789ab.db", .hidden(.nextcloud)), NameCase(".sync_0123456789ab.db-wal", .hidden(.nextcloud)),
    NameCase(".sync_0123456789ab.db-shm", .hidden(.nextcloud)), NameCase("._sync_a1b2c3d4e5f6.db", .hidden(.nextcloud)),
    NameCase(".csync_journal.db", .hidden(.nextcloud)),
    NameCase(".owncloudsync.log", .hidden(.nextcloud)), NameCase(".nextcloudsync.log", .hidden(.nextcloud)),
    NameCase(".report.txt.~1a2b3c4d", .hidden(.nextcloud)),
    NameCase("report.pdf.nextcloud", .placeholder(.nextcloud, realName: "report.pdf")),
    NameCase("slides.key.owncloud", .placeholder(.nextcloud, realName: "slides.key")),
    // Dropbox.
    NameCase("report (Jane's conflicted copy 2025-11-22).txt", conflict(.dropbox, "report.txt", "Jane")),
    NameCase("report (Jane Doe's conflicted copy 2025-11-22 (1)).txt", conflict(.dropbox, "report.txt", "Jane Doe")),
    NameCase("notes (draft) (MacBook-Pro's conflicted copy 2024-02-29).md", conflict(.dropbox, "notes (draft).md", "MacBook-Pro")),
    NameCase("Budget (Bob's MacBook (2)'s conflicted copy 2025-01-01).xlsx", conflict(.dropbox, "Budget.xlsx", "Bob's MacBook (2)")),
    NameCase("Invoice (Case Conflict).pdf", conflict(.dropbox, "Invoice.pdf")),
    NameCase("Scans (Selective Sync Conflict)", conflict(.dropbox, "Scans")),
    NameCase(".dropbox", .hidden(.dropbox)), NameCase(".dropbox.attr", .hidden(.dropbox)),
    NameCase(".dropbox.cache", .hidden(.dropbox)),
    // Unison.
    NameCase("thesis (conflict_on_2025-11-22).tex", conflict(.unison, "thesis.tex")),
    NameCase("thesis (conflict #2_on_2025-11-22).tex", conflict(.unison, "thesis.tex")),
    NameCase("todo (conflict_on_2025-11-22_was_deleted).txt", conflict(.unison, "todo.txt")),
    NameCase(" (conflict_on_2025-11-22).bashrc", conflict(.unison, ".bashrc")),
    NameCase(".unison.thesis.tex.4b5c6d7e.unison.tmp", .hidden(.unison)),
    NameCase(".#thesis.tex.0.unison.tmp", .hidden(.unison)), NameCase(".unison", .hidden(.unison)),
    // rclone bisync.
    NameCase("report.txt..path1", conflict(.rclone, "report.txt")),
    NameCase("report.txt..path2", conflict(.rclone, "report.txt")),
    NameCase("report.txt.conflict1", conflict(.rclone, "report.txt")),
    NameCase("report.txt.conflict12", conflict(.rclone, "report.txt")),
    NameCase("report.conflict2.txt", conflict(.rclone, "report.txt")),
    NameCase("report.txt.a1B2c3D4.partial", .hidden(.rclone)), NameCase(".rclone-bisync", .hidden(.rclone)),
    // macOS metadata.
    NameCase(".DS_Store", .hidden(.folder)), NameCase("Icon\r", .hidden(.folder)),
]

/// Names that look like artefacts but are not: they must stay ordinary entries.
private let lookAlikes = [
    "my.sync-conflict-notes.txt", "a.sync-conflict-2025-01-01.txt", "a.sync-conflict-20250101-101010-abcdefg.txt",
    "a.sync-conflict-20250101-101010-ABCDEF1.txt", ".syncthing.tmp", ".stfolder.bak",
    "report (conflicted copy).txt", "report (conflicted copy 2025-11-22).txt",
    "report (conflicted copy 2025-11-22 101010).tar.gz", ".sync_xyz.db", ".sync_0123456789ab.db.bak",
    ".nextcloud", "team_conflict-loesen.pdf", ".~lock.report.odt#", "report (Jane's conflicted copy).txt",
    "report (Jane's conflicted copy 2025-11-2).txt", "thesis (conflict).tex", "thesis (conflict_on_2025-11).tex",
    "a..path3", "..path1", "report.conflict.txt", "report.txt.conflict", ".icloud", "report.icloud", "..icloud",
    "Thumbs.db", "desktop.ini", "Icon", "._report.txt", "README.md", ".gitignore", "notes.partial",
    "dir/.DS_Store", "", String(repeating: "a", count: 2000) + ".sync-conflict-20250101-101010.txt",
]

@Suite("Sync-engine artefacts")
struct SyncArtefactTests {
    @Test("every engine's real artefact names classify with their original name and device", arguments: nameCases)
    func classifiesRealNames(_ c: NameCase) {
        #expect(SyncArtefacts.classify(c.name) == c.expected)
    }

    @Test("the table covers every engine with enough names")
    func tableIsBroad() {
        #expect(nameCases.count >= 40)
        let engines = Set(nameCases.compactMap { c -> SyncEngine? in
            switch c.expected {
            case .hidden(let e), .placeholder(let e, _), .conflictCopy(let e, _, _): return e
            case .none: return nil
            }
        })
        #expect(engines == Set(SyncEngine.allCases))
    }

    @Test("names that merely resemble an artefact stay ordinary entries", arguments: lookAlikes)
    func lookAlikesAreOrdinary(_ name: String) {
        #expect(SyncArtefacts.classify(name) == .none)
    }

    // MARK: detectEngine

    @Test("each engine is detected from its marker at the root of a folder", arguments: [
        ([".stfolder/"], SyncEngine.syncthing), ([".stfolder"], .syncthing),
        ([".sync_0123456789ab.db"], .nextcloud), (["._sync_a1b2c3d4e5f6.db"], .nextcloud),
        ([".owncloudsync.log"], .nextcloud), ([".nextcloudsync.log"], .nextcloud),
        ([".dropbox"], .dropbox), ([".dropbox.cache/"], .dropbox),
        ([".unison/"], .unison), ([".unison.a.txt.0f0f.unison.tmp"], .unison),
        ([".rclone-bisync"], .rclone), (["RCLONE_TEST"], .rclone), (["a.txt..path1"], .rclone),
        (["notes.md", "Journal/", "context.md"], .folder), (["sub/", "sub/.stfolder"], .folder),
        ([".dropbox", ".stfolder/"], .syncthing),
    ])
    func detectsMarkers(_ entries: [String], _ engine: SyncEngine) {
        let root = Scratch.folder(entries)
        #expect(SyncArtefacts.detectEngine(rootPath: root) == engine)
    }

    @Test("iCloud Drive is detected from its container path, and odd roots answer folder")
    func detectsPathsAndOddRoots() {
        #expect(SyncArtefacts.detectEngine(rootPath: "/Users/ann/Library/Mobile Documents/com~apple~CloudDocs") == .icloud)
        #expect(SyncArtefacts.detectEngine(rootPath: "/Users/ann/Library/Mobile Documents") == .icloud)
        #expect(SyncArtefacts.detectEngine(rootPath: "/nonexistent/wb-\(getpid())") == .folder)
        let target = Scratch.folder([".stfolder/"])
        let link = Scratch.folder([]) + "/link"
        #expect(symlink(target, link) == 0)
        #expect(SyncArtefacts.detectEngine(rootPath: link) == .folder, "a root that is a link is not followed")
        #expect(SyncArtefacts.detectEngine(rootPath: target + "/.stfolder") == .folder, "a marker is not a root")
    }

    // MARK: iCloud stubs

    @Test("a stub built byte by byte yields its name and size")
    func parsesHandBuiltStub() throws {
        let stub = try #require(SyncArtefacts.parseICloudStub(Stubs.reportPDF))
        #expect(stub.name == "report.pdf")
        #expect(stub.size == 123_456)
    }

    @Test("UTF-16 names, wide integers and extra keys are read")
    func parsesRicherStub() throws {
        let name: [UInt8] = [0x6A] + "Résumé.pdf".utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        let size: [UInt8] = [0x13, 0, 0, 0, 1, 0, 0, 0, 0]  // 2^32, 8 bytes
        let extra: [UInt8] = [0xA3, 6, 7, 8]
        let objects = [[0xD3, 1, 2, 9, 3, 4, 5], ascii("NSURLNameKey"), ascii("NSURLFileSizeKey"), name, size,
                       extra, [0x23] + Array(repeating: 0, count: 8), [0x09], [0x41, 0xFF], ascii("Other")]
        let stub = try #require(SyncArtefacts.parseICloudStub(Stubs.assemble(objects)))
        #expect(stub.name == "Résumé.pdf")
        #expect(stub.size == 1 << 32)
    }

    @Test("the reader decodes every supported type, and refuses cycles and nesting past 64 levels")
    func readerTypesAndLimits() {
        let all = Stubs.assemble([[0xA7, 1, 2, 3, 4, 5, 6, 7], [0x08], [0x22, 0x3F, 0xC0, 0, 0],
                                  [0x33] + Stubs.be(0x4000_0000_0000_0000), [0x42, 1, 2], [0x10, 0xFF],
                                  [0x13] + Stubs.ff8, [0xD0]])
        #expect(BinaryPropertyList.parse(all) == .array([.bool(false), .real(1.5), .date(2), .data([1, 2]),
                                                         .integer(255), .integer(-1), .dictionary([:])]))
        #expect(BinaryPropertyList.parse(Stubs.assemble([[0xA1, 0]])) == nil, "an array holding itself")
        func chain(_ depth: Int) -> [UInt8] { Stubs.assemble((0..<depth).map { [0xA1, UInt8($0 + 1)] } + [[0x09]]) }
        #expect(BinaryPropertyList.parse(chain(64)) != nil)
        #expect(BinaryPropertyList.parse(chain(65)) == nil)
    }

    @Test("truncations, hostile structures and junk return nil", arguments: Stubs.hostile)
    func rejectsHostile(_ bytes: [UInt8]) {
        #expect(SyncArtefacts.parseICloudStub(bytes) == nil)
    }

    @Test("every truncation and single-byte mutation of a stub is handled without crashing")
    func survivesMutations() {
        let good = Stubs.reportPDF
        for length in 0..<good.count { #expect(SyncArtefacts.parseICloudStub(Array(good[..<length])) == nil) }
        for i in good.indices {
            for v: UInt8 in [0x00, 0xFF, good[i] ^ 0x01, good[i] ^ 0x80, 0x0F, 0xAF, 0xDF, 0x5F, 0x13] {
                var bytes = good
                bytes[i] = v
                if let stub = SyncArtefacts.parseICloudStub(bytes) { #expect(!stub.name.contains("/")) }
            }
        }
    }

    @Test("random bytes, with or without a plausible header and trailer, never crash or hang")
    func survivesRandomBytes() {
        var rng = SplitMix(seed: 0x5EED)
        let elapsed = ContinuousClock().measure {
            for round in 0..<20_000 {
                var bytes = (0..<Int(rng.next() % 300)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
                if round % 2 == 1 {
                    let n = UInt8(1 + rng.next() % 8)
                    bytes = Array("bplist00".utf8) + bytes + [0, 0, 0, 0, 0, 0, UInt8(1 + rng.next() % 2), 1]
                        + Stubs.be(UInt64(n)) + Stubs.be(rng.next() % UInt64(n)) + Stubs.be(UInt64(8 + bytes.count / 2))
                    _ = BinaryPropertyList.parse(bytes)
                } else {
                    #expect(SyncArtefacts.parseICloudStub(bytes) == nil)
                }
            }
        }
        #expect(elapsed < .seconds(60))  // a hang guard, not a speed: a parser that loops never ends
    }

    @Test("shared sub-objects are decoded once, so a doubling DAG parses quickly")
    func sharedObjectsAreLinear() throws {
        // Object k is [k+1, k+1] for 60 levels: 2^60 paths, 61 objects.
        var objects: [[UInt8]] = [[0xD3, 1, 2, 3, 4, 5, 6], ascii("NSURLNameKey"), ascii("NSURLFileSizeKey"),
                                  ascii("Extra"), ascii("a.txt"), [0x10, 7], [0xA2, 7, 7]]
        for k in 7..<66 { objects.append([0xA2, UInt8(k + 1), UInt8(k + 1)]) }
        objects.append([0x10, 1])
        let bytes = Stubs.assemble(objects)
        var stub: (name: String, size: Int64)?
        let elapsed = ContinuousClock().measure { stub = SyncArtefacts.parseICloudStub(bytes) }
        #expect(try #require(stub).name == "a.txt")
        #expect(elapsed < .seconds(10))  // a hang guard: decoding each path of the DAG would never end
    }
}

private func ascii(_ s: String) -> [UInt8] {
    let b = Array(s.utf8)
    return (b.count < 15 ? [0x50 | UInt8(b.count)] : [0x5F, 0x10, UInt8(b.count)]) + b
}

/// Temporary folders holding marker entries ("name/" is a folder).
private enum Scratch {
    static func folder(_ entries: [String]) -> String {
        var template = Array("/tmp/wb-sync-XXXXXX".utf8CString)
        let root = String(cString: mkdtemp(&template)!)
        for entry in entries {
            if entry.hasSuffix("/") {
                mkdir(root + "/" + entry, 0o755)
            } else {
                close(open(root + "/" + entry, O_CREAT | O_WRONLY, 0o644))
            }
        }
        return root
    }
}

/// Binary property lists for the stub parser.
private enum Stubs {
    /// { NSURLNameKey: "report.pdf", NSURLFileSizeKey: 123456 }, written out by hand.
    static let reportPDF: [UInt8] = [
        0x62, 0x70, 0x6C, 0x69, 0x73, 0x74, 0x30, 0x30,        // "bplist00"
        0xD2, 0x01, 0x02, 0x03, 0x04,                          // @8  obj 0: dict of 2, keys 1 2, values 3 4
        0x5C] + Array("NSURLNameKey".utf8) + [                 // @13 obj 1: ASCII string of 12
        0x5F, 0x10, 0x10] + Array("NSURLFileSizeKey".utf8) + [ // @26 obj 2: ASCII string, length 16 as int object
        0x5A] + Array("report.pdf".utf8) + [                   // @45 obj 3: ASCII string of 10
        0x12, 0x00, 0x01, 0xE2, 0x40,                          // @56 obj 4: 4-byte int 123456
        0x08, 0x0D, 0x1A, 0x2D, 0x38,                          // @61 offset table, 1 byte per object
        0, 0, 0, 0, 0, 0,                                      // trailer: 6 unused bytes
        0x01, 0x01,                                            // offsetIntSize, objectRefSize
        0, 0, 0, 0, 0, 0, 0, 5,                                // numObjects
        0, 0, 0, 0, 0, 0, 0, 0,                                // topObject
        0, 0, 0, 0, 0, 0, 0, 61,                               // offsetTableOffset
    ]

    static func be(_ v: UInt64) -> [UInt8] { (0..<8).reversed().map { UInt8(truncatingIfNeeded: v >> ($0 * 8)) } }

    /// A bplist of encoded objects (1-byte references), top object 0, with a valid trailer.
    static func assemble(_ objects: [[UInt8]], trailer: ((inout [UInt8]) -> Void)? = nil) -> [UInt8] {
        var out = Array("bplist00".utf8)
        var offsets: [Int] = []
        for o in objects { offsets.append(out.count); out += o }
        let table = out.count, width = offsets.last! > 255 ? 2 : 1
        for o in offsets { out += width == 2 ? [UInt8(o >> 8), UInt8(o & 0xFF)] : [UInt8(o)] }
        var tail: [UInt8] = [0, 0, 0, 0, 0, 0, UInt8(width), 1] + be(UInt64(objects.count)) + be(0) + be(UInt64(table))
        trailer?(&tail)
        return out + tail
    }

    static func stub(name: [UInt8], size: [UInt8]) -> [UInt8] {
        assemble([[0xD2, 1, 2, 3, 4], ascii("NSURLNameKey"), ascii("NSURLFileSizeKey"), name, size])
    }

    static func patched(_ at: Int, _ bytes: [UInt8]) -> [UInt8] {
        var b = reportPDF
        b.replaceSubrange(at..<at + bytes.count, with: bytes)
        return b
    }

    static let ff8: [UInt8] = Array(repeating: 0xFF, count: 8)
    static let hostile: [[UInt8]] = [
        [], Array("bplist00".utf8), patched(0, Array("bplist01".utf8)), Array(reportPDF.dropLast()),
        // Cycles: a dictionary value that is the dictionary; an array holding itself.
        assemble([[0xD2, 1, 2, 0, 3], ascii("NSURLNameKey"), ascii("NSURLFileSizeKey"), [0x10, 1]]),
        stub(name: [0xA1, 3], size: [0x10, 1]),
        // References and offsets out of range.
        assemble([[0xD2, 1, 2, 9, 4], ascii("NSURLNameKey"), ascii("NSURLFileSizeKey"), ascii("a"), [0x10, 1]]),
        patched(64, [0xF0]), patched(64, [0x02]), patched(64, [0x3D]),
        // Huge, negative and overflowing counts.
        stub(name: [0x5F, 0x13, 0x7F] + Array(repeating: 0xFF, count: 7), size: [0x10, 1]),
        stub(name: [0x4F, 0x13] + ff8, size: [0x10, 1]),
        stub(name: [0xAF, 0x13, 0x20, 0, 0, 0, 0, 0, 0, 0], size: [0x10, 1]),
        stub(name: [0x6F, 0x13, 0x40, 0, 0, 0, 0, 0, 0, 0], size: [0x10, 1]),
        // Trailer fields: numObjects, topObject, offsetTableOffset, field sizes.
        patched(74, ff8), patched(82, be(5)), patched(90, ff8), patched(90, be(200)),
        patched(72, [0x00]), patched(72, [0x09]), patched(73, [0x00]),
        // Wrong types and values.
        assemble([[0xA2, 1, 1], ascii("x")]),
        stub(name: [0x10, 1], size: [0x10, 1]), stub(name: ascii("a.txt"), size: ascii("12")),
        stub(name: ascii("a.txt"), size: [0x13] + ff8), stub(name: ascii("a/b"), size: [0x10, 1]),
        stub(name: ascii("../etc"), size: [0x10, 1]), stub(name: ascii(""), size: [0x10, 1]),
        stub(name: ascii(".."), size: [0x10, 1]),
        stub(name: ascii("a.txt"), size: [0x14, 0, 0, 0, 0, 0, 0, 0, 1] + Array(repeating: 0, count: 8)),
        stub(name: [0x61, 0xD8, 0x00], size: [0x10, 1]), stub(name: [0x51, 0xC3], size: [0x10, 1]),
        stub(name: [0x00], size: [0x10, 1]), stub(name: [0x80, 1], size: [0x10, 1]),
        assemble([[0xD2, 1, 1, 2, 3], ascii("NSURLNameKey"), ascii("a.txt"), ascii("b.txt")]),
    ]
}

/// A small deterministic generator for the fuzz rounds.
private struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
