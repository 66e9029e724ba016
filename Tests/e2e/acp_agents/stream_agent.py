"""Streams chunks, tool calls, a plan and usage; asks permission; supports session/load."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import TestAgent, main  # noqa: E402

if __name__ == "__main__":
    main(TestAgent())
