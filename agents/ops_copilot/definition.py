"""What the ops copilot is, without building it: its instruction and its declared tools, and
the tables every other part derives from the declarations."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache

from ops_copilot.prompt import INSTRUCTION
from ops_copilot.tools.registry import TOOLS, ToolSpec

__all__ = ["INSTRUCTION", "guarded_tools", "tool_specs", "write_tools"]


@cache
def tool_specs() -> Mapping[str, ToolSpec]:
    """The declared tools, in declaration order: the reads, then the writes -- the order the
    model is shown them in (importing `actions` registers `tools` first; cached: the validator
    asks for every expected call of every case)."""
    from ops_copilot.tools import actions  # noqa: F401  (registration happens at import)

    return TOOLS


def write_tools() -> frozenset[str]:
    return frozenset(n for n, s in tool_specs().items() if s.is_write)


def guarded_tools() -> frozenset[str]:
    """Writes that never run without a human approval."""
    return frozenset(n for n, s in tool_specs().items() if s.always_confirm)
