"""Cancellation ($/cancelRequest) and duplicate request ids."""
from __future__ import annotations

import time


def assert_cancelled(response, msg_id):
    assert response["id"] == msg_id
    assert response["error"]["code"] == -32800 and response["error"]["data"]["code"] == "RequestCancelled"


def test_cancelling_a_running_request_answers_32800_promptly(server):
    # Promptly: long before the minute the request would run for; the 10 s wait is a hang guard.
    server.request("debug/sleep", {"ms": 60_000, "key": "run", "label": "long"}, id="running")
    time.sleep(0.15)

    server.notify("$/cancelRequest", {"id": "running"})
    response = server.response("running", timeout=10)

    assert_cancelled(response, "running")


def test_cancelling_a_running_request_with_an_integer_id(nd):
    nd.request("debug/sleep", {"ms": 60_000, "label": "long"}, id=41)
    time.sleep(0.1)

    nd.notify("$/cancelRequest", {"id": 41})

    assert_cancelled(nd.response(41, timeout=10), 41)


def test_cancelling_a_queued_request_answers_32800_at_once(nd):
    # At once: while the request ahead of it on its key still runs (for a minute, unless cancelled).
    nd.request("debug/sleep", {"ms": 60_000, "key": "q", "label": "first"}, id="first")
    nd.request("debug/sleep", {"ms": 60_000, "key": "q", "label": "queued"}, id="queued")
    time.sleep(0.15)

    nd.notify("$/cancelRequest", {"id": "queued"})
    response = nd.response("queued", timeout=10)

    assert_cancelled(response, "queued")
    assert not [e for e in nd.inbox if isinstance(e.msg, dict) and e.msg.get("id") == "first"], \
        "the running request must still be running"
    nd.notify("$/cancelRequest", {"id": "first"})
    assert_cancelled(nd.response("first", timeout=10), "first")


def test_cancelled_queued_request_does_not_delay_the_next_one_on_its_key(nd):
    nd.request("debug/sleep", {"ms": 400, "key": "q2", "label": "a"}, id="a")
    nd.request("debug/sleep", {"ms": 60_000, "key": "q2", "label": "b"}, id="b")
    nd.request("debug/sleep", {"ms": 10, "key": "q2", "label": "c"}, id="c")
    nd.notify("$/cancelRequest", {"id": "b"})

    # c comes within the guard, not after b's minute: the cancelled b held nothing.
    assert_cancelled(nd.response("b", timeout=10), "b")
    assert nd.response("a", timeout=10)["result"]["label"] == "a"
    assert nd.response("c", timeout=10)["result"]["label"] == "c"


def test_cancel_of_unknown_or_finished_ids_is_ignored(nd):
    assert nd.call("ping", id="done")["result"] == {}

    nd.notify("$/cancelRequest", {"id": "done"})
    nd.notify("$/cancelRequest", {"id": "never-sent"})
    nd.notify("$/cancelRequest", {"id": 123456})

    assert nd.call("ping", id="next")["result"] == {}
    nd.assert_silent(0.3)


def test_duplicate_in_flight_id_gets_duplicate_request_id(nd):
    # The original runs for 3 s, set by the test, so the duplicate arrives while it is in flight.
    nd.request("debug/sleep", {"ms": 3000, "key": "dup", "label": "original"}, id="dup")
    time.sleep(0.05)

    duplicate = nd.call("ping", id="dup", timeout=10)

    assert duplicate["error"]["code"] == -32600 and duplicate["error"]["data"]["code"] == "DuplicateRequestId"
    original = nd.response("dup", timeout=30)
    assert original["result"]["label"] == "original"
    nd.assert_silent(0.2)
    assert nd.call("ping", id="dup")["result"] == {}, "an id may be reused once its request is answered"


def test_duplicate_integer_id_in_flight_gets_duplicate_request_id(nd):
    nd.request("debug/sleep", {"ms": 3000, "label": "original"}, id=77)
    time.sleep(0.05)

    duplicate = nd.call("debug/echo", {"value": 1}, id=77, timeout=10)

    assert duplicate["error"]["data"]["code"] == "DuplicateRequestId"
    assert nd.response(77, timeout=30)["result"]["label"] == "original"
