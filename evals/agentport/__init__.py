"""What an agent under test declares to the evaluation harness, and nothing else.

The harness (`ops_eval`) reaches an agent only through the `AgentPort` the agent's package
exports as `PORT` from its `port` module (`<package>.port:PORT`); this package holds the types
of that declaration, so an agent can make one without importing the harness, and the harness
can read one without importing the agent's ADK classes.

Holds:
- `tools`: a tool's declaration (`ToolSpec`, `Param`): what it reads or writes, when it waits
  for a human approval, which entity kind each argument names; `ToolRegistry.declare` makes one
  beside the tool's definition.
- `port`: `AgentPort` (how to build the agent, its tools, its seed's entities, its state) and
  `StatePort` (how a session's state is opened, bound, snapshotted and released).

May import: nothing of the project (the standard library and pydantic only).
"""

from .port import AgentPort, StatePort
from .tools import CONTEXT_PARAM, Confirm, Effect, Param, ToolRegistry, ToolSpec, unencodable

__all__ = [
    "CONTEXT_PARAM",
    "AgentPort",
    "Confirm",
    "Effect",
    "Param",
    "StatePort",
    "ToolRegistry",
    "ToolSpec",
    "unencodable",
]
