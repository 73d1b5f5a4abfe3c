"""The ops copilot answering from a recording, for `adk eval` (see `agent.py`)."""

from . import agent  # noqa: F401  (adk eval loads `agent.root_agent`)
