"""The port: what the evaluation harness needs from an agent under test, declared once by the
agent's own package as `PORT` in its `port` module.

Only what every agent has is required: a name, its instruction, its declared tools, how to build
the ADK agent for a model, and its seed (loaded, with the ids of each entity kind). The rest is
optional, and each part of the harness says which declaration it needs (docs/your-agent.md):
`state` (per-session state the harness opens fresh for every trial and snapshots for the
`end_state` scorer), `answer_schema` (a structured answer), `app` (an ADK App wrapping the agent,
e.g. with plugins), and `extras` (a capability only this agent declares, such as the ops
copilot's guards, read by the harness parts built for it).

Builders are named as "module:attribute" strings, not objects, so reading a port never imports
ADK's agent classes or a model client: the validator reads ports in well under a second.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from .tools import ToolSpec


@runtime_checkable
class StatePort(Protocol):
    """How a session's state is kept apart: the harness makes a fresh state for every trial,
    binds it to the ADK session id before the first event (the agent's tools find it by
    `tool_context.session.id`), snapshots it before and after, and releases it."""

    def fresh(self, seed: Any) -> Any:
        """A new state over `seed`, shared with nothing."""
        ...

    def bind(self, session_id: str, state: Any) -> None: ...

    def release(self, session_id: str) -> None: ...

    def snapshot(self, state: Any) -> Any:
        """What an eval could change, comparable with `==` and JSON-serialisable
        (`model_dump()` when it is a pydantic model)."""
        ...


def _same(kind: str, value: str) -> str:
    return value


@dataclass(frozen=True)
class AgentPort:
    """One agent under test, as the harness sees it."""

    name: str
    """The agent's package name; what an eval case's `meta.agent` and `--agent` say."""
    instruction_at: str
    """"module:attribute" holding the instruction the model is told, read at each use (an
    instruction mutant changes it for a block, and the run record's hash follows)."""
    tools: Callable[[], Mapping[str, ToolSpec]]
    """Its declared tools, in the order the model is shown them (`ToolRegistry.tools`)."""
    build: str
    """"module:function": `function(model)` returns the ADK agent using that model."""
    load_seed: Callable[[Path | None], Any]
    """The seed at a folder, or the agent's own default (None); raises `ValueError` with one
    line naming the file and field when it is broken."""
    entities: Callable[[Any], Mapping[str, Collection[str]]]
    """A loaded seed's ids by entity kind: what a call's entity arguments may name."""
    normalise: Callable[[str, str], str] = _same
    """(kind, value) -> the id as the seed keys it (case, spaces), so `inc 2` may match."""
    state: StatePort | None = None
    answer_schema: type | None = None
    """The pydantic model a structured final answer validates as (the agent's `output_schema`)."""
    app: str | None = None
    """"module:function": `function(agent, app_name)` returns the ADK App to run; None: a
    plain App around the agent."""
    extras: Mapping[str, Any] = field(default_factory=dict)

    @property
    def instruction(self) -> str:
        return resolve(self.instruction_at)

    @property
    def write_tools(self) -> frozenset[str]:
        return frozenset(n for n, s in self.tools().items() if s.is_write)

    @property
    def guarded_tools(self) -> frozenset[str]:
        """Writes that never run without a human approval."""
        return frozenset(n for n, s in self.tools().items() if s.always_confirm)

    def build_agent(self, model: Any) -> Any:
        return resolve(self.build)(model)

    def build_app(self, agent: Any, app_name: str) -> Any:
        if self.app is not None:
            return resolve(self.app)(agent, app_name)
        from google.adk.apps import App

        return App(name=app_name, root_agent=agent)


def resolve(target: str) -> Any:
    """The object a "module:attribute" string names, imported on first use."""
    module, _, attribute = target.partition(":")
    return getattr(importlib.import_module(module), attribute)
