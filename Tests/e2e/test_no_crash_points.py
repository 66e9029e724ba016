"""No crash points in product code (issue 23): no `try!`, no `as!`, no force unwrap (postfix `!`),
no implicitly unwrapped optional and no `.unsafelyUnwrapped` in any Swift file under Sources/,
generated files included. An absent value is made impossible by its type, or is a typed error.

The check is scripts/check_crash_points.py, which reads Swift (comments and string text blanked,
interpolated code kept); the tests below also prove that it finds each kind of crash point planted
in real product code and is not fooled by `!=`, a prefix `!`, or a `!` in a string or a comment.
"""
from __future__ import annotations

import subprocess
import sys

import pytest

from contract import REPO

sys.path.insert(0, str(REPO / "scripts"))
from check_crash_points import EXCLUSIONS, SOURCES, ScanError, scan_text, scan_tree  # noqa: E402

SCRIPT = REPO / "scripts" / "check_crash_points.py"


def kinds(src: str) -> list[tuple[int, str]]:
    return [(f.line, f.kind) for f in scan_text(src)]


def test_product_code_has_no_crash_points():
    findings = scan_tree(SOURCES)

    assert findings == [], "crash points in product code:\n" + "\n".join(map(str, findings))


def test_the_exclusions_are_an_explicit_justified_list():
    # Ideally empty; an entry names an existing file and says why it may trap.
    for path, reason in EXCLUSIONS.items():
        assert (REPO / path).is_file(), path
        assert len(reason.split()) >= 5, f"{path}: say why it may keep a crash point"
    assert EXCLUSIONS == {}


@pytest.mark.parametrize("line, kind", [
    ("let n = Int(text)!", "postfix"),
    ("let p = buf.baseAddress!", "postfix"),
    ("let v = table[key]!", "postfix"),
    ("let f = listing.fd!.raw", "postfix"),
    ("let x = (a ?? b)!", "postfix"),
    ("let y = make()!.value", "postfix"),
    ("var ready: Bool!", "postfix"),
    ("let list: [Int]! = nil", "postfix"),
    ("let table: Dictionary<String, Int>! = nil", "postfix"),
    ("let j = try! JSONCodec.decode(text)", "`try!`"),
    ("let s = value as! String", "`as!`"),
    ("let w = ptr.unsafelyUnwrapped", "`.unsafelyUnwrapped`"),
    ('let t = "count \\(counts[k]!) of \\(total)"', "postfix"),
    ('let t = #"raw \\#(name!) text"#', "postfix"),
    ('let t = """\n    many \\(lines!)\n    """', "postfix"),
])
def test_the_scanner_finds_each_kind_planted_in_real_product_code(line, kind):
    real = (SOURCES / "JSON" / "JanssonTree.swift").read_text(encoding="utf-8")
    lines = real.split("\n")
    at = next(i for i, l in enumerate(lines) if "mutating func make(" in l) + 1
    planted = "\n".join(lines[:at] + ["        " + line] + lines[at:])

    assert scan_text(real) == []
    found = kinds(planted)
    planted_at = at + 1 + next(i for i, part in enumerate(line.split("\n")) if "!" in part or "unsafely" in part)
    assert len(found) == 1 and found[0][0] == planted_at and kind in found[0][1], found


def test_the_scanner_is_not_fooled_by_other_exclamation_marks():
    src = '''
    if a != b, c !== d, !flag, !(x && y) { }
    let ok = !done && (!first || ![1].isEmpty)
    let m = a!=b   // a comment with x! and try! and as!
    /* a block comment with y! /* nested z! */ still try! */
    let s = "Hello, world! \\"quoted!\\" and try! as!"
    let r = #"raw "text"! with \\(notCode!)"#
    let u = """
        multi-line! with "quotes"! and as! String
        """
    let e = "\\\\"; let f = !e.isEmpty
    let g = x.map { !$0 }
    @discardableResult func h() -> Bool { !g.isEmpty }
    '''

    assert kinds(src) == []


def test_an_unterminated_string_is_an_error_not_a_pass():
    with pytest.raises(ScanError):
        scan_text('let s = "never closed\nlet x = y!\n')
    with pytest.raises(ScanError):
        scan_text("/* never closed\nlet x = y!\n")


def test_the_command_fails_on_a_planted_unwrap_and_passes_clean_code(tmp_path):
    clean = tmp_path / "Clean"
    clean.mkdir()
    (clean / "A.swift").write_text('let a = b != nil ? "yes!" : "no"\n', encoding="utf-8")
    dirty = tmp_path / "Dirty"
    dirty.mkdir()
    (dirty / "B.swift").write_text("func f(_ d: [String: Int]) -> Int {\n    d[\"k\"]!\n}\n", encoding="utf-8")

    ok = subprocess.run([sys.executable, str(SCRIPT), str(clean)], capture_output=True, text=True, timeout=60)
    bad = subprocess.run([sys.executable, str(SCRIPT), str(dirty)], capture_output=True, text=True, timeout=60)

    assert ok.returncode == 0 and ok.stdout == ""
    assert bad.returncode == 1
    assert bad.stdout.strip().endswith("B.swift:2:11: force unwrap or implicitly unwrapped optional (postfix `!`)")
