/// Whether a name reaches one of the server's reserved top-level folders (`.workspace`,
/// `.wb-staging.nosync`) on some volume, compared the way volumes that fold names compare them.
///
/// Case-insensitive and normalising volumes (APFS and HFS+ by default, exFAT, FAT, casefolded
/// ext4, SMB shares) open `.Workspace`, `.WORKSPACE`, a decomposed or precomposed spelling, or
/// (HFS+) one with an ignorable code point inside as the same folder. So, on every platform
/// (whatever the volume, which can change under a running server), a name is reserved when,
/// after dropping the code points HFS+ ignores and trailing dots and spaces (which Windows
/// volumes drop), it equals a reserved name up to case folding and canonical equivalence (Swift's
/// `==`), or is its FAT short name (`WORKSP~1`).
///
/// Guarantees: every spelling that one of those volumes resolves to a reserved folder is
/// refused; compatibility forms (fullwidth letters) are not folded by any of them and stay
/// ordinary names.
enum ReservedNames {
    static let folders = [Workspace.privateFolder, Workspace.stagingFolder]

    /// Whether `name` (one path component) may name a reserved folder.
    static func isReserved(_ name: String) -> Bool {
        // No reserved name nor short name is shorter than 8 bytes.
        guard name.utf8.count >= 8 else { return false }
        let folded = fold(name)
        return folders.contains { folded == $0 || isShortName(folded, of: $0) }
    }

    /// The name folded: ignorables, then trailing dots and spaces dropped, then case folded
    /// (lowercased, with the long s and the Kelvin sign as their letters).
    static func fold(_ name: String) -> String {
        var scalars = String.UnicodeScalarView()
        for s in name.unicodeScalars where !ignorable(s) { scalars.append(s) }
        var kept = String(scalars)
        while let last = kept.last, last == "." || last == " " { kept.removeLast() }
        var out = ""
        for c in kept.lowercased() {
            switch c {
            case "\u{017F}": out.append("s")
            case "\u{212A}": out.append("k")
            default: out.append(c)
            }
        }
        return out
    }

    /// Code points HFS+ ignores when it compares names (the set Git refuses in `.git` too).
    static func ignorable(_ s: Unicode.Scalar) -> Bool {
        switch s.value {
        case 0x200C...0x200F, 0x202A...0x202E, 0x206A...0x206F, 0xFEFF: true
        default: false
        }
    }

    /// The stem of a FAT short name for `reserved` (`worksp~` for `.workspace`) and its
    /// extension (`nos` for `.wb-staging.nosync`, empty for none).
    private static func shortName(of reserved: String) -> (stem: String, ext: String) {
        let bare = String(reserved.drop { $0 == "." })
        let dot = bare.lastIndex(of: ".")
        let base = dot.map { String(bare[..<$0]) } ?? bare
        let ext = dot.map { String(bare[bare.index(after: $0)...]) } ?? ""
        return (String(base.filter { $0 != "." && $0 != " " }.prefix(6)) + "~", String(ext.prefix(3)))
    }

    /// Whether `folded` is a FAT short name of `reserved`: the stem, digits, then the extension.
    private static func isShortName(_ folded: String, of reserved: String) -> Bool {
        let (stem, ext) = shortName(of: reserved)
        guard folded.hasPrefix(stem) else { return false }
        var rest = Substring(folded.dropFirst(stem.count))
        if !ext.isEmpty {
            guard rest.hasSuffix("." + ext) else { return false }
            rest = rest.dropLast(ext.count + 1)
        }
        return !rest.isEmpty && rest.allSatisfy { $0.isASCII && $0.isNumber }
    }
}
