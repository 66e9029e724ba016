"""Uses extension methods both ways: on the prompt "ext" it calls the client's `_wb_test/ping`
and sends `_wb_test/note`; it answers the client's `_wb_test/echo` with what it was given."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import TestAgent, main  # noqa: E402


class ExtAgent(TestAgent):
    async def turn(self, sid, command, texts, earlier):
        if command == "ext":
            answer = await self.conn.ext_method("wb_test/ping", {"sessionId": sid, "n": 41, "_meta": {"x": 1}})
            await self.conn.ext_notification("wb_test/note", {"sessionId": sid, "hello": "editor"})
            await self.say(sid, f"pong: {answer.get('n')}")
            from acp import schema as S
            return S.PromptResponse(stop_reason="end_turn")
        return await super().turn(sid, command, texts, earlier)

    async def ext_method(self, method, params):
        return {"echoed": params, "method": method}

    async def ext_notification(self, method, params):
        pass


if __name__ == "__main__":
    main(ExtAgent())
