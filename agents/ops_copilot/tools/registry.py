"""The ops copilot's tool declarations: each tool says, next to its definition, what it is.

A tool is declared with `@declare(effect=..., entities=...)` (`agentport.ToolRegistry`, the
declaration the evaluation harness reads through the agent's port): whether it reads or writes,
when it needs a human approval, which seed entity kind each argument names, and which keys of
its result carry untrusted text. Everything that needs a table of tools derives it from
`TOOLS` (through `definition.tool_specs()`) instead of keeping a list of its own.
"""

from __future__ import annotations

from agentport import CONTEXT_PARAM, Confirm, Effect, Param, ToolRegistry, ToolSpec, unencodable
from ops_copilot.seed.loading import ENTITY_KINDS

__all__ = [
    "CONTEXT_PARAM", "TOOLS", "Confirm", "Effect", "Param", "ToolSpec", "declare", "unencodable",
]  # fmt: skip

_REGISTRY = ToolRegistry(ENTITY_KINDS)
TOOLS = _REGISTRY.tools
declare = _REGISTRY.declare
