"""The ops copilot's agent and the modules its own mutants patch (its tools, write policy,
guards): importing this loads ADK, so the harness imports it only inside the functions that
build the agent or patch it (the red team, the mutants, the live runs)."""

from ops_copilot import actions, agent, approval, definition, results, spotlight, tools, writes
from ops_copilot.actions import note_problem
from ops_copilot.agent import build_agent, output_guard
from ops_copilot.output_guard import LINKS_REMOVED
from ops_copilot.output_guard import logger as output_logger

__all__ = [
    "LINKS_REMOVED", "actions", "agent", "approval", "build_agent", "definition", "note_problem",
    "output_guard", "output_logger", "results", "spotlight", "tools", "writes",
]  # fmt: skip
