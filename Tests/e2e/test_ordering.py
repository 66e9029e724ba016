"""Ordering by keys: conflicting requests in arrival order, disjoint ones in parallel.

Parallel is asserted as order, never as a time: the requests that must not wait for one another
sleep for a minute (set here, not by the machine), and each must have begun (its `$/progress`
begin) or answered while the others still run. The waits are hang guards (10 s and more).
"""
from __future__ import annotations

LONG = 60_000
GUARD = 10


def sleep(b, ms, key=None, access=None, label=None, token=None):
    params = {"ms": ms, "label": label or f"{key}-{ms}"}
    if key is not None:
        params["key"] = key
    if access is not None:
        params["access"] = access
    if token is not None:
        params["workDoneToken"] = token
    return b.request("debug/sleep", params)


def begun(b, tokens, timeout=GUARD):
    """Waits until every token's `$/progress` begin has arrived: each of those handlers has started."""
    def seen():
        started = {e.msg["params"]["token"] for e in b.log if isinstance(e.msg, dict)
                   and e.msg.get("method") == "$/progress" and e.msg["params"]["value"]["kind"] == "begin"}
        return set(tokens) <= started
    b.pump_until(seen, timeout, f"progress begin of {sorted(tokens)}")


def answered(b, msg_id):
    return [e for e in b.inbox if isinstance(e.msg, dict) and "method" not in e.msg and e.msg.get("id") == msg_id]


def cancel_all(b, ids):
    for i in ids:
        b.notify("$/cancelRequest", {"id": i})
    for i in ids:
        assert b.response(i, timeout=GUARD)["error"]["code"] == -32800
    b.notifications("$/progress")


def test_slow_request_on_one_key_does_not_delay_a_fast_one_on_another(nd):
    slow = sleep(nd, LONG, key="A", label="slow")
    fast = sleep(nd, 20, key="B", label="fast")
    pinged = nd.request("ping")

    fast_response = nd.response(fast, timeout=GUARD)
    nd.response(pinged, timeout=GUARD)

    assert fast_response["result"]["label"] == "fast"
    assert not answered(nd, slow), "the fast request came after the slow one on another key"
    cancel_all(nd, [slow])


def test_two_writes_on_one_key_finish_in_arrival_order(nd):
    first = sleep(nd, 300, key="W", access="write", label="first")
    second = sleep(nd, 20, key="W", access="write", label="second")

    r1 = nd.response_entry(first, timeout=GUARD)
    r2 = nd.response_entry(second, timeout=GUARD)

    assert r1.seq < r2.seq, "the second write was answered before the first"
    assert r1.msg["result"]["finishedAt"] <= r2.msg["result"]["startedAt"]


def test_write_is_the_default_access(nd):
    first = sleep(nd, 250, key="D", label="first")
    second = sleep(nd, 20, key="D", label="second")

    r1 = nd.response(first, timeout=GUARD)["result"]
    r2 = nd.response(second, timeout=GUARD)["result"]

    assert r1["finishedAt"] <= r2["startedAt"]


def test_reads_on_one_key_overlap(nd):
    a = sleep(nd, LONG, key="R", access="read", label="a")
    b = sleep(nd, 20, key="R", access="read", label="b")

    assert nd.response(b, timeout=GUARD)["result"]["label"] == "b"
    assert not answered(nd, a), "the second read waited for the first"
    cancel_all(nd, [a])


def test_read_after_write_on_one_key_waits_for_the_write(nd):
    w = sleep(nd, 300, key="RW", access="write", label="w")
    r = sleep(nd, 20, key="RW", access="read", label="r")

    rw = nd.response(w, timeout=GUARD)["result"]
    rr = nd.response(r, timeout=GUARD)["result"]

    assert rw["finishedAt"] <= rr["startedAt"]


def test_write_after_read_on_one_key_waits_for_the_read(nd):
    r = sleep(nd, 300, key="WR", access="read", label="r")
    w = sleep(nd, 20, key="WR", access="write", label="w")

    rr = nd.response(r, timeout=GUARD)["result"]
    rw = nd.response(w, timeout=GUARD)["result"]

    assert rr["finishedAt"] <= rw["startedAt"]


def test_writes_on_disjoint_keys_run_in_parallel(nd):
    a = sleep(nd, LONG, key="P1", access="write", label="a", token="P1")
    b = sleep(nd, LONG, key="P2", access="write", label="b", token="P2")

    begun(nd, ["P1", "P2"])

    assert not answered(nd, a) and not answered(nd, b)
    cancel_all(nd, [a, b])


def test_requests_without_keys_run_at_once(nd):
    tokens = [f"free{i}" for i in range(8)]
    ids = [sleep(nd, LONG, label=t, token=t) for t in tokens]

    begun(nd, tokens)  # all eight running together, none finished: all keyless requests run at the same time

    assert not any(answered(nd, i) for i in ids)
    cancel_all(nd, ids)


def test_many_requests_on_disjoint_keys_all_run_in_parallel(nd):
    tokens = [f"many{i}" for i in range(40)]
    ids = [sleep(nd, LONG, key=t, label=t, token=t) for t in tokens]

    begun(nd, tokens, timeout=30)  # requests on disjoint keys do not wait for one another

    assert not any(answered(nd, i) for i in ids)
    cancel_all(nd, ids)


def test_many_long_requests_never_block_an_unrelated_one(nd):
    slow = [sleep(nd, LONG, key=f"busy{i}", label=f"busy{i}") for i in range(8)]
    slow += [sleep(nd, LONG, label=f"free{i}") for i in range(4)]

    fast = sleep(nd, 10, key="unrelated", label="fast")
    pinged = nd.request("ping")
    assert nd.response(fast, timeout=GUARD)["result"]["label"] == "fast"
    nd.response(pinged, timeout=GUARD)

    assert not any(answered(nd, i) for i in slow)
    cancel_all(nd, slow)
