"""docs/architecture.md names only what exists (issue 23: "docs/architecture.md is true").

Every repository path it names (`Sources/…`, `Tests/…`, `schema/…`…), every backticked file
name (`FileResults.swift`, `retry_cases.py`) and every backticked Swift name it uses as a
reference (`ObjectResult`, `BridgeServer.route`, `SaveFile.Params.init`, `MethodDeclaration.method(_:)`)
is checked against the tree: a path must exist, a file name must be some tracked file's name,
a type must be declared in Swift, and a member must be declared (`func`, `var`, `let`, `case`,
`init`, `typealias`) in a file that declares or extends that type or a protocol it adopts. A
backticked lower-case word (`withSession`, `stopReason`, a commit such as `b62ba33`) must be a
Swift declaration, a string of the code or of a schema, or a commit of the repository.
Grep-level, no build needed.
Names the document mentions on purpose without their being in the code (the trial face of its
checklist, error codes of the contract) are listed here or found in `schema/openrpc.json`.
"""
from __future__ import annotations

import functools
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from contract import REPO

DOC = REPO / "docs" / "architecture.md"

# Names the document uses that are meant not to be in the tree: the trials its checklists were
# followed with (not kept), the placeholders of the checklists, and the modules' targets named
# as folders in prose.
NOT_IN_CODE = {"TrialFace", "DebugTrial", "DoThing", "SomeEnum", "State", "Self"}
# Lower-case words in backticks that are neither Swift names nor strings of the code or schemas:
# Swift keywords, a subcommand (`doctor`: ArgumentParser names it after its type), a system call,
# and the trial face's param.
PLAIN_WORDS = {"package", "public", "doctor", "flock", "trialVersion"}

# Files the document may name before the branch adding them has landed (none now: every path it
# names is checked).
LANDING_WITH_ISSUE_23: set[str] = set()

PATH_RE = re.compile(r"(?<![\w/.])((?:Sources|Tests|Benchmarks|schema|scripts|clients|docs)/[\w+./*-]*[\w*/])")
TICKED_RE = re.compile(r"`([^`\n]+)`")
FILE_RE = re.compile(r"^(?:[\w+-]+/)*[\w+-]+\.(?:swift|py|mjs|js|c|h)$")
# `Type`, `Type.member`, `Type.Nested.member`, `Type.member(args:)`: a reference to code.
REF_RE = re.compile(r"^([A-Z]\w*(?:\.\w+)*)(\([\w:\s,]*\))?$")
DECL_KEYWORDS = r"(?:struct|enum|class|protocol|actor|typealias|extension)"


@dataclass
class Findings:
    missing_paths: list[str] = field(default_factory=list)
    missing_files: list[str] = field(default_factory=list)
    missing_types: list[str] = field(default_factory=list)
    missing_members: list[str] = field(default_factory=list)
    missing_names: list[str] = field(default_factory=list)

    def all(self) -> list[str]:
        return self.missing_paths + self.missing_files + self.missing_types + self.missing_members + self.missing_names


@functools.cache
def tracked_files() -> tuple[str, ...]:
    out = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"],
                         cwd=REPO, capture_output=True, text=True, check=True).stdout
    return tuple(p for p in out.splitlines() if (REPO / p).exists())


@functools.cache
def swift_sources() -> dict[str, str]:
    return {p: (REPO / p).read_text(encoding="utf-8", errors="replace")
            for p in tracked_files() if p.endswith(".swift") and p.startswith(("Sources/", "Tests/"))}


@functools.cache
def files_of_type(name: str) -> tuple[str, ...]:
    """The Swift files that declare or extend type `name` (any access level, generic or not)."""
    decl = re.compile(rf"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|private|fileprivate|final|indirect)\s+)*"
                      rf"{DECL_KEYWORDS}\s+(?:\w+\.)*{re.escape(name)}\b", re.M)
    return tuple(p for p, text in swift_sources().items() if decl.search(text))


@functools.cache
def conformances(name: str) -> tuple[str, ...]:
    """The protocols `name`'s declarations and extensions state (`enum X: P, Q`), whose
    extensions may declare the member the document names."""
    decl = re.compile(rf"{DECL_KEYWORDS}\s+{re.escape(name)}\s*(?:<[^>]*>)?\s*:\s*([\w\s,.&]+?)\s*(?:\{{|where\b)")
    found: list[str] = []
    for text in swift_sources().values():
        for m in decl.finditer(text):
            found += [p.strip().split(".")[-1] for p in re.split(r"[,&]", m.group(1)) if p.strip()]
    return tuple(dict.fromkeys(found))


def member_of(type_name: str, member: str, depth: int = 0) -> bool:
    """Whether `type_name`, or a protocol it conforms to, declares `member`."""
    if declares_member(files_of_type(type_name), member):
        return True
    return depth < 3 and any(member_of(p, member, depth + 1) for p in conformances(type_name) if p != type_name)


def known_name(name: str) -> bool:
    """A bare name that is not a Swift type but real: a module, a contract name (error code,
    schema type), or a Python constant of the tests."""
    if (REPO / "Sources" / name).is_dir() or re.search(rf"\b{re.escape(name)}\b", schema_text()):
        return True
    assign = re.compile(rf"^{re.escape(name)}\s*[:=]", re.M)
    return name.isupper() and any(assign.search((REPO / p).read_text(encoding="utf-8", errors="replace"))
                                  for p in tracked_files() if p.endswith(".py"))


def declares_member(type_files: tuple[str, ...], member: str) -> bool:
    if member == "init":
        pattern = re.compile(r"\binit[?!]?\s*[(<]|\bstruct\s+\w+")  # a memberwise init counts
    elif member == "self":
        return True
    else:
        m = re.escape(member)
        pattern = re.compile(
            rf"\b(?:func|var|let|typealias|associatedtype)\s+{m}\b"  # func member(, var member:
            rf"|\bcase\b[^\n=]*?\b{m}\b"                              # enum cases (lists too)
            rf"|\b(?:struct|enum|class|protocol|actor)\s+{m}\b")      # a nested type
    return any(pattern.search(swift_sources()[p]) for p in type_files)


@functools.cache
def schema_text() -> str:
    return (REPO / "schema" / "openrpc.json").read_text(encoding="utf-8")


@functools.cache
def all_schemas_text() -> str:
    return schema_text() + "".join(p.read_text(encoding="utf-8", errors="replace")
                                   for p in sorted((REPO / "schema" / "vendor").rglob("*.json")))


def known_word(word: str) -> bool:
    """A backticked lower-case word: a commit the tree has, a Swift declaration (`withSession`,
    `isOurs`), or a string the code or a schema uses (`session/update`'s `stopReason`, `saveFile`)."""
    if word in PLAIN_WORDS:
        return True
    if re.fullmatch(r"[0-9a-f]{7,40}", word) and re.search(r"\d", word):
        return subprocess.run(["git", "cat-file", "-e", word + "^{commit}"], cwd=REPO, capture_output=True).returncode == 0
    sources = "\n".join(swift_sources().values())
    return bool(re.search(rf"\b(?:func|var|let|case)\s+{re.escape(word)}\b", sources)) \
        or f'"{word}"' in sources or f'"{word}"' in all_schemas_text()


def check(doc: str) -> Findings:
    found = Findings()
    files = tracked_files()
    names = {Path(p).name for p in files}
    for path in sorted(set(PATH_RE.findall(doc))):
        if "<" in path or (path in LANDING_WITH_ISSUE_23 and not (REPO / path).exists()):
            continue
        if "*" in path:
            if not list(REPO.glob(path)):
                found.missing_paths.append(path)
        elif not (REPO / path.rstrip("/")).exists():
            found.missing_paths.append(path)

    for ticked in sorted(set(TICKED_RE.findall(doc))):
        text = ticked.strip()
        if FILE_RE.match(text) and "<" not in text:
            if PATH_RE.fullmatch(text):
                continue  # checked above, as a path
            if "/" in text:
                if not any(p.endswith("/" + text) for p in files):  # `Tools/FileTools.swift`
                    found.missing_files.append(text)
            elif text not in names and not any(p.endswith("/" + text) for p in LANDING_WITH_ISSUE_23):
                found.missing_files.append(text)
            continue
        if re.fullmatch(r"[a-z]\w*", text):
            if not known_word(text):
                found.missing_names.append(text)
            continue
        ref = REF_RE.match(text)
        if not ref:
            continue
        parts = ref.group(1).split(".")
        if parts[0] in NOT_IN_CODE:
            continue
        # The leading run of capitalised parts are types (Type, Type.Nested); what follows, a member.
        types = []
        for part in parts:
            if part[0].isupper():
                types.append(part)
            else:
                break
        members = parts[len(types):]
        if len(members) > 1:
            continue  # a chain of calls (`call.services.workspace`): code, not a reference
        if not files_of_type(types[0]):
            if len(parts) == 1 and known_name(text):
                continue
            found.missing_types.append(text)
            continue
        owner = types[0]
        for nested in types[1:]:
            if not member_of(owner, nested) and not files_of_type(nested):
                found.missing_types.append(text)
                break
            owner = nested
        else:
            if members and not member_of(owner, members[0]):
                found.missing_members.append(text)
    return found


def test_every_path_file_and_name_in_the_architecture_doc_exists():
    findings = check(DOC.read_text(encoding="utf-8"))
    assert not findings.all(), (
        "docs/architecture.md names what the tree does not have:\n"
        f"  paths: {findings.missing_paths}\n  files: {findings.missing_files}\n"
        f"  types: {findings.missing_types}\n  members: {findings.missing_members}\n"
        f"  words: {findings.missing_names}")


def test_the_doc_names_files_and_code_at_all():
    """The checker reads what the document names (a regex gone wrong would pass any document)."""
    doc = DOC.read_text(encoding="utf-8")
    assert len(set(PATH_RE.findall(doc))) >= 30
    refs = [t for t in TICKED_RE.findall(doc) if REF_RE.match(t.strip())]
    assert len(refs) >= 100


def test_the_checker_finds_a_missing_file_path_type_and_member():
    snippet = (
        "1. `ObjectResult` answers (`Sources/BridgeServer/MethodResult.swift`), "
        "built by `BridgeServer.route` in `FileResults.swift`.\n"
        "2. Gone: `Sources/BridgeServer/NoSuchThing.swift`, `NoSuchFile.swift`, "
        "`NoSuchType.member`, `FileStatus.writeResultThatIsNot`, `Services.noSuchMember(_:)`, "
        "`forwardSessionRequestz`, `abc1234`.\n")
    f = check(snippet)
    assert f.missing_paths == ["Sources/BridgeServer/NoSuchThing.swift"]
    assert f.missing_files == ["NoSuchFile.swift"]
    assert f.missing_types == ["NoSuchType.member"]
    assert sorted(f.missing_members) == ["FileStatus.writeResultThatIsNot", "Services.noSuchMember(_:)"]
    assert f.missing_names == ["abc1234", "forwardSessionRequestz"]


def test_the_checker_passes_what_exists():
    snippet = ("`SaveFile.Params.init`, `MethodDeclaration.method(_:)`, `WorkerPool.Refusal`, `Connection.Conventions`, "
               "`ACPProxy`, `Outbox`, `Tests/e2e/test_mcp*.py`, `ServerBusy`, `Tools/FileTools.swift`, "
               "`forwardSessionRequest`, `stopReason`, `b62ba33`.")
    assert not check(snippet).all()
