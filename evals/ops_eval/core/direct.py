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

from ..agents import default_agent, port

__all__ = ["DirectContext"]


@dataclass
class DirectContext:
    """A ToolContext stand-in with no events: nothing untrusted was read in this 'session'."""

    workspace: Any
    """The agent's state (the ops copilot's: a `Workspace`), bound through its port."""
    invocation_id: str = "direct"
    user_id: str = "direct"
    tool_confirmation: Any = None
    agent: str = field(default_factory=default_agent)
    session: Any = field(init=False)

    def __post_init__(self) -> None:
        self.session = SimpleNamespace(id=f"direct-{uuid.uuid4().hex}", events=[])
        self._port = port(self.agent)
        if self._port.state is None:
            raise ValueError(f"agent {self.agent} declares no state to call its tools on")
        self._port.state.bind(self.session.id, self.workspace)

    def call(self, tool: str, /, **args: Any) -> dict[str, Any]:
        """Run one declared tool with these arguments, as ADK would run it."""
        return self._port.tools()[tool].func(**args, tool_context=self)

    def close(self) -> None:
        assert self._port.state is not None
        self._port.state.release(self.session.id)

    def __enter__(self) -> DirectContext:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
