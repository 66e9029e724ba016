import JSON
import Storage
import Testing

@Suite("Settings limits")
struct SettingsLimitTests {
    @Test("keys of 1 to 64 bytes of UTF-8 are accepted; empty and longer keys are refused with InvalidArgument")
    func keyLength() throws {
        let s = store(tempRoot(), "device-a")
        let longest = String(repeating: "é", count: 32)  // 64 bytes
        _ = try s.set([(longest, 1)])
        let tooLong = String(repeating: "é", count: 32) + "x"
        #expect { _ = try s.set([(tooLong, 1)]) } throws: { e in
            guard case .invalidKey(let key, _, let limit, let size)? = e as? SettingsError else { return false }
            return key == tooLong && limit == 64 && size == 65
        }
        #expect { _ = try s.set([("", 1)]) } throws: { code($0) == "InvalidArgument" }
        #expect(try s.snapshot().values.count == 1)
    }

    @Test("a key with a NUL character is refused: the device's file could not be read back")
    func nulInKey() throws {
        let root = tempRoot()
        let s = store(root, "device-a")
        _ = try s.set([("theme", "dark")])
        #expect { _ = try s.set([("a\u{0}b", 1)]) } throws: { code($0) == "InvalidArgument" }
        // What was there before is still readable, by this store and a fresh one.
        #expect(try s.snapshot().values == ["theme": "dark"])
        #expect(try store(root, "device-b").snapshot().values == ["theme": "dark"])
    }

    @Test("the 1,025th key is refused with QuotaExceeded and nothing is written")
    func keyCount() throws {
        let s = store(tempRoot(), "device-a")
        _ = try s.set((0..<1024).map { ("k\($0)", JSON.int(Int64($0))) })
        #expect { _ = try s.set([("one more", 1), ("k0", 99)]) } throws: { e in
            e as? SettingsError == .quotaExceeded(.keys, limit: 1024, size: 1025)
        }
        let snap = try s.snapshot()
        #expect(snap.values.count == 1024)
        #expect(snap.values["k0"] == 0)
        // Replacing a value keeps the count: still allowed at the limit.
        _ = try s.set([("k0", "replaced")])
    }

    @Test("more than 1 MB in total is refused with QuotaExceeded; removing makes room again")
    func totalBytes() throws {
        let s = store(tempRoot(), "device-a")
        let half = JSON.string(String(repeating: "x", count: 600_000))
        _ = try s.set([("first", half)])
        #expect { _ = try s.set([("second", half)]) } throws: { e in
            guard case .quotaExceeded(.bytes, let limit, let size)? = e as? SettingsError else { return false }
            return limit == 1_048_576 && size > 1_048_576
        }
        #expect(try s.snapshot().values.keys.sorted() == ["first"])
        _ = try s.remove(["first"])
        _ = try s.set([("second", half)])
    }

    @Test("limits count the merged values of every device")
    func mergedCount() throws {
        let root = tempRoot()
        _ = try store(root, "device-a").set((0..<600).map { ("a\($0)", JSON.int(1)) })
        _ = try store(root, "device-b").set((0..<424).map { ("b\($0)", JSON.int(1)) })
        #expect { _ = try store(root, "device-b").set([("b-more", 1)]) } throws: { code($0) == "QuotaExceeded" }
    }
}
