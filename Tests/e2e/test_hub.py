"""The session hub on PostgreSQL (`--hub`): local-first replication through the outbox, reading on
another machine, untrusted rows, users kept apart, the schema's version, credentials.

Two server processes with different roots and config folders and one hub play two machines. The
hub is a real PostgreSQL (hub_cluster.py) started per module; each test gets its own database.
"""
from __future__ import annotations

import itertools
import os
import subprocess

import pytest

from bridge import Bridge
from hub_cluster import Cluster, bindir, wait_until

PG = bindir()
pytestmark = pytest.mark.skipif(PG is None, reason="PostgreSQL is not installed (scripts/setup.sh --test installs it)")

ALICE, ALICE_PW = "alice", "alice-secret-pw"
BOB, BOB_PW = "bob", "bob-secret-pw"
_db = itertools.count()


@pytest.fixture(scope="module")
def cluster():
    c = Cluster(PG)
    c.psql(f"CREATE ROLE {ALICE} LOGIN PASSWORD '{ALICE_PW}'")
    c.psql(f"CREATE ROLE {BOB} LOGIN PASSWORD '{BOB_PW}'")
    yield c
    c.close()


@pytest.fixture
def hub(cluster):
    """A fresh database on the cluster, where alice and bob may create their schemas."""
    name = f"hub{next(_db)}"
    cluster.psql(f"CREATE DATABASE {name}")
    for user in (ALICE, BOB):
        cluster.psql(f"GRANT CREATE ON DATABASE {name} TO {user}")
    cluster.db = name
    return cluster


@pytest.fixture
def machines(binary, contract, tmp_path, hub):
    """machine(name, user=alice) -> a started, initialized server on that machine's folders."""
    started: list[Bridge] = []
    counter = itertools.count()

    def machine(name: str, user: str = ALICE, password: str = ALICE_PW, extra=()) -> Bridge:
        base = tmp_path / name
        env = {**os.environ, "PGPASSWORD": password, "XDG_DATA_HOME": str(tmp_path / "xdg")}
        env.pop("WORKSPACE_BRIDGE_HUB", None)
        argv = ["--local-root", str(base / "ws"), "--config-dir", str(base / "config"),
                "--hub", hub.uri(user, hub.db), "--log-level", "debug", *extra]
        b = Bridge(argv, "ndjson", contract, tmp_path / f"stderr-{name}-{next(counter)}.log", binary=binary, env=env)
        started.append(b)
        b.initialize()
        return b

    yield machine
    for b in started:
        b.kill()


def hub_info(b: Bridge) -> dict:
    return b.result("getStorageInfo", {}, 20.0)["hub"]


def drained(b: Bridge, timeout: float = 60.0) -> dict:
    """Waits until every record this machine wrote is committed to the hub."""
    return wait_until(lambda: (lambda h: h if h["connected"] and h["outboxRecords"] == 0 else None)(hub_info(b)),
                      timeout, "the outbox to drain")


def create(b: Bridge, title: str) -> str:
    return b.result("session/create", {"title": title}, 20.0)["id"]


def append(b: Bridge, sid: str, texts: list[str]) -> None:
    got = b.result("session/appendMessages", {"id": sid, "messages": [{"role": "user", "content": t} for t in texts]}, 20.0)
    assert got["count"] == len(texts)


def texts(b: Bridge, sid: str) -> list[str]:
    return [m["content"] for m in b.result("session/messages", {"id": sid, "limit": 1000}, 30.0)["messages"]]


def listed(b: Bridge) -> dict[str, dict]:
    sessions = b.result("session/list", {"limit": 1000}, 30.0)["sessions"]
    ids = [s["id"] for s in sessions]
    assert len(ids) == len(set(ids)), f"a session listed twice: {ids}"
    return {s["id"]: s for s in sessions}


def test_replicate_stop_a_read_on_b(machines):
    a = machines("a")
    sid = create(a, "written on A")
    append(a, sid, ["one", "two"])
    append(a, sid, ["three"])
    info = drained(a)
    assert info["schemaVersion"] == 1 and info["committedRecords"] >= 3 and info["lastError"] is None
    assert listed(a)[sid]["replication"] == "replicated"
    a.kill()  # machine A is off

    b = machines("b")
    assert b.result("session/get", {"id": sid}, 30.0)["title"] == "written on A"
    assert texts(b, sid) == ["one", "two", "three"]
    entries = listed(b)
    assert entries[sid]["replication"] == "replicated" and entries[sid]["title"] == "written on A"
    # B goes on with it, and its records reach the hub after A's.
    append(b, sid, ["four"])
    drained(b)
    c = machines("c")
    assert texts(c, sid) == ["one", "two", "three", "four"]


def test_list_merges_hub_sessions_with_local_ones(machines):
    a = machines("a")
    remote = create(a, "A's")
    drained(a)
    b = machines("b")
    local = create(b, "B's")
    entries = listed(b)
    assert set(entries) == {remote, local}
    assert entries[remote]["title"] == "A's" and entries[local]["title"] == "B's"


def test_hub_down_while_a_appends_then_back(machines, hub):
    a = machines("a")
    sid = create(a, "through an outage")
    answered = []
    for i in range(3):
        append(a, sid, [f"before-{i}"])
        answered.append(f"before-{i}")
    drained(a)
    hub.stop("immediate")
    for i in range(5):
        append(a, sid, [f"during-{i}"])  # answered locally, the hub down
        answered.append(f"during-{i}")
    info = wait_until(lambda: (lambda h: h if not h["connected"] else None)(hub_info(a)), 60.0, "A to see the hub down")
    assert info["outboxRecords"] >= 1 and info["lastError"]
    assert texts(a, sid) == answered
    hub.start()
    append(a, sid, ["after"])
    answered.append("after")
    drained(a, timeout=90.0)
    a.kill()
    b = machines("b")
    assert texts(b, sid) == answered  # every answered message, once, in order


def test_outbox_survives_a_restart_of_a(machines, hub, tmp_path):
    a = machines("a")
    sid = create(a, "outbox on disk")
    drained(a)
    hub.stop("immediate")
    append(a, sid, ["kept in the outbox"])
    wait_until(lambda: hub_info(a)["outboxRecords"] >= 1, 30.0, "the record in the outbox")
    a.kill()  # SIGKILL with the record only in the journal and the outbox
    assert list((tmp_path / "a" / "config").glob("hub-outbox-*.jsonl"))
    hub.start()
    a2 = machines("a")
    drained(a2, timeout=90.0)
    b = machines("b")
    assert texts(b, sid) == ["kept in the outbox"]


def _forge(hub, sid: str, sql: str) -> None:
    hub.psql(sql.replace("$SID", sid), user=ALICE, password=ALICE_PW, db=hub.db)


@pytest.mark.parametrize("forgery", [
    # A byte of a record's JSON changed: its checksum no longer matches.
    "UPDATE alice.wb_records SET record = overlay(record placing 'X'::bytea from 20 for 1) "
    "WHERE session_id = '$SID' AND record_offset > 0",
    # The hub's stated checksum changed.
    "UPDATE alice.wb_records SET crc = crc + 1 WHERE session_id = '$SID' AND record_offset > 0",
    # A record moved: a gap in the offsets.
    "UPDATE alice.wb_records SET record_offset = record_offset + 7 WHERE session_id = '$SID' AND record_offset > 0",
])
def test_forged_row_is_refused_and_reported(machines, hub, forgery):
    a = machines("a")
    sid = create(a, "to be forged")
    append(a, sid, ["genuine"])
    drained(a)
    a.kill()
    _forge(hub, sid, forgery)
    b = machines("b")
    err = b.error("session/get", {"id": sid}, 30.0)
    assert err["data"]["code"] == "IOError" and "refused" in err["message"], err
    assert sid not in listed(b)  # never presented as a session
    err = b.error("session/messages", {"id": sid}, 30.0)
    assert err["data"]["code"] == "IOError"
    assert "refused (damaged or forged)" in b.stderr_text()
    assert b.result("session/create", {"title": "still serving"}, 20.0)["id"]


def test_users_are_kept_apart(machines, hub):
    a = machines("a")  # alice
    sid = create(a, "alice's")
    append(a, sid, ["private"])
    drained(a)
    b = machines("b", user=BOB, password=BOB_PW)
    mine = create(b, "bob's")
    drained(b)
    assert set(listed(b)) == {mine}
    assert b.error("session/get", {"id": sid}, 30.0)["data"]["code"] == "NotFound"
    # Bob cannot read or write alice's records with SQL of his own either.
    r = hub.psql("SELECT count(*) FROM alice.wb_records", user=BOB, password=BOB_PW, db=hub.db, check=False)
    assert r.returncode != 0 and "permission denied" in r.stderr
    r = hub.psql("INSERT INTO alice.wb_records (session_id, record_offset, record, crc, origin) "
                 "VALUES ('sess_x', 0, '\\x00', 0, 'bob')", user=BOB, password=BOB_PW, db=hub.db, check=False)
    assert r.returncode != 0 and "permission denied" in r.stderr
    assert sid not in listed(a) or listed(a)[sid]["title"] == "alice's"
    assert mine not in listed(a)


def test_newer_schema_is_refused(machines, hub, binary, tmp_path):
    a = machines("a")
    create(a, "x")
    drained(a)
    _forge(hub, "", "UPDATE alice.wb_version SET version = 99")
    a.kill()
    a = machines("a")
    sid = create(a, "local-first")  # works locally
    info = wait_until(lambda: (lambda h: h if h["lastError"] else None)(hub_info(a)), 60.0, "the refusal")
    assert "version 99" in info["lastError"] and "upgrade workspace-bridge" in info["lastError"]
    assert info["outboxRecords"] >= 1 and sid
    env = {**os.environ, "PGPASSWORD": ALICE_PW}
    r = subprocess.run([str(binary), "doctor", "--local-root", str(tmp_path / "d" / "ws"), "--config-dir",
                        str(tmp_path / "d" / "config"), "--hub", hub.uri(ALICE, hub.db)],
                       capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 1 and "version 99" in r.stdout, r.stdout


def test_doctor_checks_the_hub(hub, binary, tmp_path, machines):
    env = {**os.environ, "PGPASSWORD": ALICE_PW, "WORKSPACE_BRIDGE_HUB": hub.uri(ALICE, hub.db)}
    argv = [str(binary), "doctor", "--local-root", str(tmp_path / "d" / "ws"), "--config-dir", str(tmp_path / "d" / "config")]
    r = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=60)
    assert "session hub: reachable; its schema is not created yet" in r.stdout, r.stdout
    drained(machines("a"))  # the first connection creates the schema
    r = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=60)
    assert "session hub: reachable, schema version 1" in r.stdout, r.stdout
    r = subprocess.run(argv, capture_output=True, text=True, env={**env, "PGPASSWORD": "wrong"}, timeout=60)
    assert r.returncode == 1 and "session hub" in r.stdout and "wrong" not in r.stdout, r.stdout


def test_password_in_the_address_is_refused(binary, hub, tmp_path):
    uri = f"postgresql://{ALICE}:{ALICE_PW}@127.0.0.1:{hub.port}/{hub.db}"
    for argv, env in (
        (["--hub", uri], dict(os.environ)),
        ([], {**os.environ, "WORKSPACE_BRIDGE_HUB": uri}),
    ):
        r = subprocess.run([str(binary), "serve", "--local-root", str(tmp_path / "ws"), "--config-dir", str(tmp_path / "c"),
                            *argv], capture_output=True, text=True, env=env, timeout=30, stdin=subprocess.DEVNULL)
        assert r.returncode != 0 and "PGPASSWORD" in r.stderr, r.stderr
        assert ALICE_PW not in r.stderr and r.stdout == ""


def test_the_password_is_never_logged(machines):
    a = machines("a")
    sid = create(a, "quiet")
    append(a, sid, ["x"])
    drained(a)
    assert ALICE_PW not in a.stderr_text()
    with open(f"/proc/{a.proc.pid}/cmdline", "rb") as f:
        assert ALICE_PW.encode() not in f.read()


def test_sessions_written_before_the_hub_reach_it(machines, binary, contract, tmp_path):
    # Machine A first runs without a hub, then with one: what it wrote before is caught up.
    base = tmp_path / "a"
    plain = Bridge(["--local-root", str(base / "ws"), "--config-dir", str(base / "config")], "ndjson", contract,
                   tmp_path / "stderr-plain.log", binary=binary, env={**os.environ, "XDG_DATA_HOME": str(tmp_path / "xdg")})
    try:
        plain.initialize()
        sid = create(plain, "before the hub")
        append(plain, sid, ["old one", "old two"])
    finally:
        plain.kill()
    a = machines("a")
    assert sid in listed(a)  # the sessions open (the catch-up is at their opening, then at each connection)
    wait_until(lambda: hub_info(a)["committedRecords"] >= 2, 60.0, "the catch-up")
    drained(a)
    a.kill()
    b = machines("b")
    assert texts(b, sid) == ["old one", "old two"]


def test_kill_a_mid_replication(machines):
    a = machines("a")
    sid = create(a, "killed while sending")
    answered = []
    for i in range(40):
        append(a, sid, [f"m{i}"])
        answered.append(f"m{i}")
    a.kill()  # SIGKILL, whatever the drainer was doing
    a2 = machines("a")
    drained(a2, timeout=90.0)
    a2.kill()
    b = machines("b")
    assert texts(b, sid) == answered
