"""An agent without loadSession or resume: every session it sees starts empty."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import TestAgent, main  # noqa: E402


class NoLoadAgent(TestAgent):
    can_load = False


if __name__ == "__main__":
    main(NoLoadAgent())
