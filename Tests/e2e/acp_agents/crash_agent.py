"""Crashes mid-turn on the prompt "crash" (after two chunks), otherwise as the stream agent."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import TestAgent, main  # noqa: E402


class CrashAgent(TestAgent):
    async def turn(self, sid, command, texts, earlier):
        if command == "crash":
            await self.say(sid, "before ")
            await self.say(sid, "the crash")
            sys.stdout.flush()
            await __import__("asyncio").sleep(0.2)
            os._exit(3)
        return await super().turn(sid, command, texts, earlier)


if __name__ == "__main__":
    main(CrashAgent())
