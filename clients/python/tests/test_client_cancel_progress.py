"""Cancellation ($/cancelRequest from task cancellation or Call.cancel) and $/progress streams."""
from __future__ import annotations

import asyncio
import time

import pytest

from workspace_bridge import BridgeError, spawn


def run(place, scenario, **options):
    async def main():
        async with spawn(debug_methods=True, **place.options(**options)) as client:
            return await scenario(client)
    return asyncio.run(main())


def answers(raw: list[dict], request_id: int) -> list[dict]:
    return [m for m in raw if isinstance(m, dict) and "method" not in m and m.get("id") == request_id]


def test_cancelling_the_awaiting_task_sends_cancel_request_and_the_server_stops(place):
    sent: list[dict] = []
    raw: list[dict] = []

    async def scenario(c):
        call = c.debug_sleep(ms=60_000, label="long")
        task = asyncio.ensure_future(call)
        await asyncio.sleep(0.2)
        t0 = time.monotonic()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        await c.ping()  # answered after the cancelled request's answer has been read
        while not answers(raw, call.id) and time.monotonic() - t0 < 10:  # a hang guard
            await asyncio.sleep(0.01)
        return call

    call = run(place, scenario, on_send=sent.append, on_message=raw.append)

    assert {"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": call.id}} in sent
    answer = answers(raw, call.id)
    # The server stopped it: a minute's sleep answered RequestCancelled within the guard.
    assert answer and answer[0]["error"]["data"]["code"] == "RequestCancelled"


def test_wait_for_timing_out_cancels_the_request_on_the_server(place):
    sent: list[dict] = []

    async def scenario(c):
        call = c.debug_sleep(ms=10_000)
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(call, 0.2)
        return call

    call = run(place, scenario, on_send=sent.append)

    assert any(m.get("method") == "$/cancelRequest" and m["params"]["id"] == call.id for m in sent)


def test_call_cancel_makes_the_await_raise_request_cancelled(place):
    async def scenario(c):
        call = c.debug_sleep(ms=10_000)
        await asyncio.sleep(0.1)
        first, second = call.cancel(), call.cancel()
        with pytest.raises(BridgeError) as cancelled:
            await call
        after = call.cancel()
        return first, second, after, cancelled.value

    first, second, after, cancelled = run(place, scenario)

    assert (first, second, after) == (True, False, False), "one cancel is sent, none once answered"
    assert cancelled.code == -32800 and cancelled.data_code == "RequestCancelled"


def test_progress_streams_begin_reports_and_end_then_the_result(place):
    async def scenario(c):
        call = c.debug_sleep(ms=600, label="p", progress=True)
        values = [v async for v in call.progress()]
        return call, values, call.done(), await call

    call, values, done_after_end, result = run(place, scenario)

    kinds = [v["kind"] for v in values]
    assert kinds[0] == "begin" and kinds[-1] == "end" and set(kinds[1:-1]) <= {"report"}
    assert values[0]["title"] and values[0]["cancellable"] is True
    assert isinstance(call.token, str)
    assert result["label"] == "p"


def test_search_progress_with_a_token_of_the_callers_choosing(place):
    async def scenario(c):
        for i in range(20):
            await c.save_file(path=f"s/{i}.txt", data="needle\n")
        call = c.search_files(query="needle", work_done_token=4242)
        values = [v async for v in call.progress()]
        return values, await call

    values, result = run(place, scenario)

    assert values[0]["kind"] == "begin" and values[-1]["kind"] == "end"
    assert len(result["matches"]) == 20


def test_progress_of_a_call_without_a_token_is_refused(place):
    async def scenario(c):
        call = c.debug_sleep(ms=0)
        with pytest.raises(ValueError, match="progress=True"):
            call.progress()
        await call

    run(place, scenario)


def test_a_progress_stream_ends_when_its_request_fails_before_any_progress(place):
    async def scenario(c):
        call = c.request("debug/sleep", {"ms": -1}, progress=True)
        values = [v async for v in call.progress()]
        with pytest.raises(BridgeError) as bad:
            await call
        return values, bad.value

    values, bad = run(place, scenario)

    assert values == [] and bad.data_code == "InvalidParams"
