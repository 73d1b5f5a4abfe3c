"""Calling the agent's tools directly, outside ADK, on a workspace of one's own.

The validator replays expected reads against the real tools (gold replay), the red team measures
what a reader call returns on the clean seed, and tests call tools without a model. A
`DirectContext` stands in for ADK's ToolContext: it has a session of its own, bound to the given
workspace exactly as a harness binds an ADK session, and released by `close()` (or `with`).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

from ops_copilot.definition import tool_specs
from ops_copilot.workspace import WORKSPACES, Workspace

__all__ = ["DirectContext"]


@dataclass
class DirectContext:
    """A ToolContext stand-in with no events: nothing untrusted was read in this 'session'."""

    workspace: Workspace
    invocation_id: str = "direct"
    user_id: str = "direct"
    tool_confirmation: Any = None
    session: Any = field(init=False)

    def __post_init__(self) -> None:
        self.session = SimpleNamespace(id=f"direct-{uuid.uuid4().hex}", events=[])
        WORKSPACES.bind(self.session.id, self.workspace)

    def call(self, tool: str, /, **args: Any) -> dict[str, Any]:
        """Run one declared tool with these arguments, as ADK would run it."""
        return tool_specs()[tool].func(**args, tool_context=self)

    def close(self) -> None:
        WORKSPACES.release(self.session.id)

    def __enter__(self) -> DirectContext:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
