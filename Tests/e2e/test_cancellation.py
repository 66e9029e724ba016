"""Cancellation ($/cancelRequest) and duplicate request ids."""
from __future__ import annotations

import time


def assert_cancelled(response, msg_id):
    assert response["id"] == msg_id
    assert response["error"]["code"] == -32800 and response["error"]["data"]["code"] == "RequestCancelled"


def test_cancelling_a_running_request_answers_32800_promptly(server):
    server.request("debug/sleep", {"ms": 5000, "key": "run", "label": "long"}, id="running")
    time.sleep(0.15)

    sent = time.monotonic()
    server.notify("$/cancelRequest", {"id": "running"})
    response = server.response("running", timeout=3)

    assert_cancelled(response, "running")
    assert time.monotonic() - sent < 1.0


def test_cancelling_a_running_request_with_an_integer_id(nd):
    nd.request("debug/sleep", {"ms": 5000, "label": "long"}, id=41)
    time.sleep(0.1)

    nd.notify("$/cancelRequest", {"id": 41})

    assert_cancelled(nd.response(41, timeout=2), 41)


def test_cancelling_a_queued_request_answers_32800_at_once(nd):
    nd.request("debug/sleep", {"ms": 3000, "key": "q", "label": "first"}, id="first")
    nd.request("debug/sleep", {"ms": 3000, "key": "q", "label": "queued"}, id="queued")
    time.sleep(0.15)

    sent = time.monotonic()
    nd.notify("$/cancelRequest", {"id": "queued"})
    response = nd.response("queued", timeout=2)

    assert_cancelled(response, "queued")
    assert time.monotonic() - sent < 0.5
    assert not [e for e in nd.inbox if isinstance(e.msg, dict) and e.msg.get("id") == "first"], \
        "the running request must still be running"
    nd.notify("$/cancelRequest", {"id": "first"})
    assert_cancelled(nd.response("first", timeout=2), "first")


def test_cancelled_queued_request_does_not_delay_the_next_one_on_its_key(nd):
    nd.request("debug/sleep", {"ms": 400, "key": "q2", "label": "a"}, id="a")
    nd.request("debug/sleep", {"ms": 3000, "key": "q2", "label": "b"}, id="b")
    nd.request("debug/sleep", {"ms": 10, "key": "q2", "label": "c"}, id="c")
    nd.notify("$/cancelRequest", {"id": "b"})

    assert_cancelled(nd.response("b", timeout=2), "b")
    assert nd.response("a", timeout=3)["result"]["label"] == "a"
    assert nd.response("c", timeout=1.5)["result"]["label"] == "c"


def test_cancel_of_unknown_or_finished_ids_is_ignored(nd):
    assert nd.call("ping", id="done")["result"] == {}

    nd.notify("$/cancelRequest", {"id": "done"})
    nd.notify("$/cancelRequest", {"id": "never-sent"})
    nd.notify("$/cancelRequest", {"id": 123456})

    assert nd.call("ping", id="next")["result"] == {}
    nd.assert_silent(0.3)


def test_duplicate_in_flight_id_gets_duplicate_request_id(nd):
    nd.request("debug/sleep", {"ms": 600, "key": "dup", "label": "original"}, id="dup")
    time.sleep(0.05)

    duplicate = nd.call("ping", id="dup", timeout=2)

    assert duplicate["error"]["code"] == -32600 and duplicate["error"]["data"]["code"] == "DuplicateRequestId"
    original = nd.response("dup", timeout=3)
    assert original["result"]["label"] == "original"
    nd.assert_silent(0.2)
    assert nd.call("ping", id="dup")["result"] == {}, "an id may be reused once its request is answered"


def test_duplicate_integer_id_in_flight_gets_duplicate_request_id(nd):
    nd.request("debug/sleep", {"ms": 500, "label": "original"}, id=77)
    time.sleep(0.05)

    duplicate = nd.call("debug/echo", {"value": 1}, id=77, timeout=2)

    assert duplicate["error"]["data"]["code"] == "DuplicateRequestId"
    assert nd.response(77, timeout=3)["result"]["label"] == "original"
