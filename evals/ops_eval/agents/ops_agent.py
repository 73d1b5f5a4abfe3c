"""The ops copilot's agent and the modules its own mutants patch (its tools, write policy,
guards): importing this loads ADK, so the harness imports it only inside the functions that
build the agent or patch it (the red team, the mutants, the live runs)."""

from ops_copilot import agent, definition
from ops_copilot.agent import build_agent, output_guard
from ops_copilot.guards import spotlight
from ops_copilot.guards.output_guard import LINKS_REMOVED
from ops_copilot.guards.output_guard import logger as output_logger
from ops_copilot.store import writes
from ops_copilot.tools import actions, approval, results
from ops_copilot.tools import reads as tools

__all__ = [
    "LINKS_REMOVED", "actions", "agent", "approval", "build_agent", "definition",
    "output_guard", "output_logger", "results", "spotlight", "tools", "writes",
]  # fmt: skip
