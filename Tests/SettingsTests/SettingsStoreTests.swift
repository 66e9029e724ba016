#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import JSON
import Storage
import Testing

func tempRoot() -> String {
    var template = Array("/tmp/wb-settings-XXXXXX".utf8CString)
    return String(cString: mkdtemp(&template)!)
}

/// A store for `device` on `root` whose wall clock reads `ms`.
func store(_ root: String, _ device: String, at ms: Int64 = SettingsClock.wallNow()) -> SettingsStore {
    SettingsStore(rootPath: root, device: device, now: { ms })
}

/// The kind of a settings error, named as the protocol's `data.code` is.
func code(_ error: any Error) -> String? {
    switch error as? SettingsError {
    case .quotaExceeded?: "QuotaExceeded"
    case .invalidKey?: "InvalidArgument"
    case .io?: "IOError"
    case nil: nil
    }
}

@Suite("Settings store")
struct SettingsStoreTests {
    @Test("set values can be read back, and removed keys disappear")
    func setGetRemove() throws {
        let root = tempRoot()
        let s = store(root, "device-a")
        let after = try s.set([("darkMode", true), ("textSize", 14), ("languages", ["en", "fr"])])
        #expect(after.values == ["darkMode": true, "textSize": 14, "languages": ["en", "fr"]])
        #expect(try s.snapshot().values == after.values)
        let removed = try s.remove(["textSize", "neverSet"])
        #expect(removed.values == ["darkMode": true, "languages": ["en", "fr"]])
        #expect(try s.snapshot().values["textSize"] == nil)
        #expect(try s.snapshot().entries["textSize"]?.isTombstone == true)
        #expect(try s.snapshot().entries["neverSet"] == nil)
    }

    @Test("an empty folder reads as no settings and no update time")
    func empty() throws {
        let snap = try store(tempRoot(), "device-a").snapshot()
        #expect(snap.values.isEmpty)
        #expect(snap.updatedAt == nil)
    }

    @Test("values survive a restart: a new store on the same root reads them")
    func restart() throws {
        let root = tempRoot()
        _ = try store(root, "device-a", at: 1_700_000_000_123).set([("theme", "solarized")])
        let reopened = store(root, "device-a")
        #expect(try reopened.snapshot().values == ["theme": "solarized"])
        #expect(try reopened.snapshot().updatedAt == "2023-11-14T22:13:20.123Z")
    }

    @Test("each device writes only its own file in .workspace/settings")
    func ownFiles() throws {
        let root = tempRoot()
        _ = try store(root, "device-a").set([("a", 1)])
        _ = try store(root, "device-b").set([("b", 2)])
        let names = try listFolder(root + "/.workspace/settings")
        #expect(names == ["device-a.json", "device-b.json"])
    }

    @Test("two devices editing different keys keep both")
    func otherKeys() throws {
        let root = tempRoot()
        let a = store(root, "device-a", at: 1000)
        let b = store(root, "device-b", at: 1000)
        _ = try a.set([("fromA", "a")])
        _ = try b.set([("fromB", "b")])
        #expect(try a.snapshot().values == ["fromA": "a", "fromB": "b"])
        #expect(try b.snapshot().values == ["fromA": "a", "fromB": "b"])
    }

    @Test("two devices editing the same key: the later write wins on both")
    func sameKey() throws {
        let root = tempRoot()
        // Written while apart (each device's file only): B's write is later by the wall clock.
        let bRoot = tempRoot()
        _ = try store(root, "device-a", at: 2_000).set([("k", "from A")])
        _ = try store(bRoot, "device-b", at: 3_000).set([("k", "from B")])
        try copyFile(bRoot + "/.workspace/settings/device-b.json", root + "/.workspace/settings/device-b.json")
        #expect(try store(root, "device-a").snapshot().values["k"] == "from B")
        #expect(try store(root, "device-b").snapshot().values["k"] == "from B")
        #expect(try store(root, "device-b").snapshot().entries["k"]?.clock.device == "device-b")
    }

    @Test("a write made after seeing another wins even when its wall clock is behind")
    func causality() throws {
        let root = tempRoot()
        _ = try store(root, "device-a", at: 10_000).set([("k", "first")])
        let later = try store(root, "device-b", at: 5_000).set([("k", "second")])
        #expect(later.values["k"] == "second")
        #expect(later.entries["k"]?.clock == SettingsClock(wallMs: 10_000, counter: 1, device: "device-b"))
    }

    @Test("a removal beats an earlier value from another device, and a later value beats the removal")
    func tombstones() throws {
        let root = tempRoot()
        _ = try store(root, "device-a", at: 1_000).set([("k", 1)])
        #expect(try store(root, "device-b", at: 2_000).remove(["k"]).values["k"] == nil)
        #expect(try store(root, "device-a", at: 1_500).snapshot().values["k"] == nil)
        #expect(try store(root, "device-a", at: 3_000).set([("k", 2)]).values["k"] == 2)
    }

    @Test("concurrent writers on one device (threads sharing a file) lose no key")
    func concurrentWriters() async throws {
        let root = tempRoot()
        await withTaskGroup(of: Void.self) { group in
            for i in 0..<16 {
                group.addTask {
                    let s = SettingsStore(rootPath: root, device: "device-a")
                    for j in 0..<5 { _ = try? s.set([("k\(i)-\(j)", .int(Int64(j)))]) }
                }
            }
        }
        #expect(try store(root, "device-a").snapshot().values.count == 80)
    }

    @Test("conflict copies are merged on read, and the owner folds its own back in on the next write")
    func conflictCopies() throws {
        let root = tempRoot()
        let a = store(root, "device-a", at: 1_000)
        _ = try a.set([("k", "current")])
        let other = tempRoot()
        _ = try store(other, "device-a", at: 500).set([("fromCopy", true), ("k", "older")])
        let copy = "device-a.sync-conflict-20250101-101010-ABCDEFG.json"
        try copyFile(other + "/.workspace/settings/device-a.json", root + "/.workspace/settings/" + copy)
        #expect(try a.snapshot().values == ["k": "current", "fromCopy": true])
        _ = try a.set([("more", 1)])
        #expect(try listFolder(root + "/.workspace/settings") == ["device-a.json"])
        #expect(try a.snapshot().values == ["k": "current", "fromCopy": true, "more": 1])
    }

    @Test("temp files, unreadable files and other names in the folder are ignored")
    func junk() throws {
        let root = tempRoot()
        _ = try store(root, "device-a").set([("k", 1)])
        let dir = root + "/.workspace/settings/"
        try writeFile(dir + ".syncthing.device-b.json.wb-00000001deadbeef.tmp", "{\"entries\":{\"x\":{\"value\":1,\"at\":9,\"n\":0,\"by\":\"b\"}}}")
        try writeFile(dir + "device-c.json", "not json")
        try writeFile(dir + "notes.txt", "{}")
        #expect(try store(root, "device-a").snapshot().values == ["k": 1])
    }

    @Test("a settings folder that is a link is not followed")
    func linkRefused() throws {
        let root = tempRoot()
        let elsewhere = tempRoot()
        mkdir(root + "/.workspace", 0o755)
        symlink(elsewhere, root + "/.workspace/settings")
        #expect { _ = try store(root, "device-a").set([("k", 1)]) } throws: { code($0) == "IOError" }
        #expect(try listFolder(elsewhere).isEmpty)
    }
}

func listFolder(_ path: String) throws -> [String] {
    guard let d = opendir(path) else { throw SettingsError.io("cannot list", errno: errno, path: path) }
    defer { closedir(d) }
    var out: [String] = []
    while let e = readdir(d) {
        let name = withUnsafeBytes(of: e.pointee.d_name) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
        if name != "." && name != ".." { out.append(name) }
    }
    return out.sorted()
}

func writeFile(_ path: String, _ text: String) throws {
    guard let f = fopen(path, "w") else { throw SettingsError.io("cannot write", errno: errno, path: path) }
    fputs(text, f)
    fclose(f)
}

func copyFile(_ from: String, _ to: String) throws {
    guard let f = fopen(from, "r") else { throw SettingsError.io("cannot read", errno: errno, path: from) }
    var bytes: [UInt8] = []
    while true {
        let c = fgetc(f)
        if c == EOF { break }
        bytes.append(UInt8(c))
    }
    fclose(f)
    try writeFile(to, String(decoding: bytes, as: UTF8.self))
}

@Suite("Settings files from elsewhere")
struct SettingsForeignFileTests {
    @Test("entries no valid write can produce (bad keys, impossible clocks, null values) are skipped, the rest kept")
    func malformedEntries() throws {
        let root = tempRoot()
        _ = try store(root, "device-a").set([("mine", 1)])
        let long = String(repeating: "k", count: 65)
        try writeFile(root + "/.workspace/settings/device-b.json", """
            {"version":1,"device":"device-b","entries":{
             "good":{"value":2,"at":1000,"n":0,"by":"device-b"},
             "\(long)":{"value":3,"at":1000,"n":0,"by":"device-b"},
             "":{"value":4,"at":1000,"n":0,"by":"device-b"},
             "future":{"value":5,"at":999999999999999999,"n":0,"by":"device-b"},
             "nullValue":{"value":null,"at":1000,"n":0,"by":"device-b"},
             "noClock":{"value":6}}}
            """)
        #expect(try store(root, "device-a").snapshot().values == ["mine": 1, "good": 2])
    }
}
