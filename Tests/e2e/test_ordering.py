"""Ordering by keys: conflicting requests in arrival order, disjoint ones in parallel."""
from __future__ import annotations

import time


def sleep(b, ms, key=None, access=None, label=None):
    params = {"ms": ms, "label": label or f"{key}-{ms}"}
    if key is not None:
        params["key"] = key
    if access is not None:
        params["access"] = access
    return b.request("debug/sleep", params)


def overlap(a, b):
    return a["startedAt"] < b["finishedAt"] and b["startedAt"] < a["finishedAt"]


def test_slow_request_on_one_key_does_not_delay_a_fast_one_on_another(nd):
    slow = sleep(nd, 2000, key="A", label="slow")
    sent = time.monotonic()
    fast = sleep(nd, 20, key="B", label="fast")
    pinged = nd.request("ping")

    fast_response = nd.response(fast, timeout=3)
    elapsed = time.monotonic() - sent
    nd.response(pinged, timeout=1)

    assert fast_response["result"]["label"] == "fast"
    assert elapsed < 1.0, f"fast request took {elapsed:.2f}s behind a slow one on another key"
    assert not [e for e in nd.inbox if isinstance(e.msg, dict) and e.msg.get("id") == slow]
    nd.notify("$/cancelRequest", {"id": slow})
    nd.response(slow, timeout=2)


def test_two_writes_on_one_key_finish_in_arrival_order(nd):
    first = sleep(nd, 300, key="W", access="write", label="first")
    second = sleep(nd, 20, key="W", access="write", label="second")

    r1 = nd.response_entry(first, timeout=3)
    r2 = nd.response_entry(second, timeout=3)

    assert r1.seq < r2.seq, "the second write was answered before the first"
    assert r1.msg["result"]["finishedAt"] <= r2.msg["result"]["startedAt"]


def test_write_is_the_default_access(nd):
    first = sleep(nd, 250, key="D", label="first")
    second = sleep(nd, 20, key="D", label="second")

    r1 = nd.response(first, timeout=3)["result"]
    r2 = nd.response(second, timeout=3)["result"]

    assert r1["finishedAt"] <= r2["startedAt"]


def test_reads_on_one_key_overlap(nd):
    sent = time.monotonic()
    a = sleep(nd, 500, key="R", access="read", label="a")
    b = sleep(nd, 500, key="R", access="read", label="b")

    ra = nd.response(a, timeout=3)["result"]
    rb = nd.response(b, timeout=3)["result"]

    assert overlap(ra, rb), (ra, rb)
    assert time.monotonic() - sent < 0.95


def test_read_after_write_on_one_key_waits_for_the_write(nd):
    w = sleep(nd, 300, key="RW", access="write", label="w")
    r = sleep(nd, 20, key="RW", access="read", label="r")

    rw = nd.response(w, timeout=3)["result"]
    rr = nd.response(r, timeout=3)["result"]

    assert rw["finishedAt"] <= rr["startedAt"]


def test_write_after_read_on_one_key_waits_for_the_read(nd):
    r = sleep(nd, 300, key="WR", access="read", label="r")
    w = sleep(nd, 20, key="WR", access="write", label="w")

    rr = nd.response(r, timeout=3)["result"]
    rw = nd.response(w, timeout=3)["result"]

    assert rr["finishedAt"] <= rw["startedAt"]


def test_writes_on_disjoint_keys_run_in_parallel(nd):
    sent = time.monotonic()
    a = sleep(nd, 500, key="P1", access="write", label="a")
    b = sleep(nd, 500, key="P2", access="write", label="b")

    ra = nd.response(a, timeout=3)["result"]
    rb = nd.response(b, timeout=3)["result"]

    assert overlap(ra, rb), (ra, rb)
    assert time.monotonic() - sent < 0.95


def test_requests_without_keys_run_at_once(nd):
    sent = time.monotonic()
    ids = [sleep(nd, 400, label=f"free{i}") for i in range(8)]

    results = [nd.response(i, timeout=5)["result"] for i in ids]

    assert max(r["startedAt"] for r in results) < min(r["finishedAt"] for r in results), \
        "all keyless requests must run at the same time"
    assert time.monotonic() - sent < 0.9


def test_many_requests_on_disjoint_keys_all_run_in_parallel(nd):
    sent = time.monotonic()
    ids = [sleep(nd, 300, key=f"many{i}", label=f"m{i}") for i in range(40)]

    results = [nd.response(i, timeout=10)["result"] for i in ids]

    assert {r["label"] for r in results} == {f"m{i}" for i in range(40)}
    assert max(r["startedAt"] for r in results) < min(r["finishedAt"] for r in results), \
        "requests on disjoint keys must not wait for one another"
    assert time.monotonic() - sent < 1.5


def test_many_long_requests_never_block_an_unrelated_one(nd):
    slow = [sleep(nd, 3000, key=f"busy{i}", label=f"busy{i}") for i in range(8)]
    slow += [sleep(nd, 3000, label=f"free{i}") for i in range(4)]
    time.sleep(0.1)

    sent = time.monotonic()
    fast = sleep(nd, 10, key="unrelated", label="fast")
    pinged = nd.request("ping")
    nd.response(fast, timeout=3)
    nd.response(pinged, timeout=3)

    assert time.monotonic() - sent < 0.6
    for i in slow:
        nd.notify("$/cancelRequest", {"id": i})
    for i in slow:
        assert nd.response(i, timeout=3)["error"]["code"] == -32800
