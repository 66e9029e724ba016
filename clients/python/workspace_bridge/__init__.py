"""An asyncio client for WorkspaceBridge (JSON-RPC 2.0 over stdio).

    import asyncio
    from workspace_bridge import spawn

    async def main():
        async with spawn(local_root="/tmp/notes") as client:
            await client.save_file(path="hello.md", data="# Hello\\n")
            print((await client.load_file(path="hello.md"))["data"])

    asyncio.run(main())
"""
__version__ = "0.1.0"

from .call import Call  # noqa: E402
from .client import Client, find_binary, spawn, start  # noqa: E402
from .connection import Connection  # noqa: E402
from .errors import BridgeError, ConnectionClosed, ProtocolError  # noqa: E402
from .framing import Decoder, FramingError, encode  # noqa: E402
from .streams import Stream  # noqa: E402

__all__ = [
    "BridgeError", "Call", "Client", "Connection", "ConnectionClosed", "Decoder", "FramingError",
    "ProtocolError", "Stream", "__version__", "encode", "find_binary", "spawn", "start",
]
