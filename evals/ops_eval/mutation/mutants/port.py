"""Mutants of any agent, made through its port alone: what the harness can break in an agent it
did not write is what the agent declares -- its tools (`agentport.ToolRegistry`, which the agent
is built from) and their write policy. They are the mutants of an agent the harness has none of
its own for (`for_agents`); the ops copilot's own mutants (`tools`, `guards`) also know its
guards and store.

- `port-approval-skipped` (policy): every write that waits for a human runs without asking,
  as when a tool's declaration loses its `confirm`.
- `port-write-unapplied` (tool): every write answers `ok` and changes nothing.
- `port-read-not-found` (tool): every read answers that what it names does not exist.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
from collections.abc import Callable, Iterable, Mapping
from types import MappingProxyType
from typing import Any

from agentport import AgentPort, ToolRegistry, ToolSpec

from ...agents import port as agent_port
from .base import OWN_AGENTS, Mutant, registered


def _swapped(
    registry: ToolRegistry, specs: list[ToolSpec]
) -> Callable[[contextlib.ExitStack], None]:
    def patch(stack: contextlib.ExitStack) -> None:
        for spec in specs:
            stack.enter_context(registry.replaced(spec))

    return patch


def _answering(spec: ToolSpec, answer: Callable[[dict[str, Any]], dict[str, Any]]) -> ToolSpec:
    """`spec` whose tool answers `answer(arguments)` instead of running."""

    @functools.wraps(spec.func)
    def tool(*args: Any, **kwargs: Any) -> dict[str, Any]:
        return answer({k: v for k, v in kwargs.items() if k in spec.params})

    return dataclasses.replace(spec, func=tool)


def _not_found(spec: ToolSpec) -> Callable[[dict[str, Any]], dict[str, Any]]:
    def answer(args: dict[str, Any]) -> dict[str, Any]:
        named = next(((k, v) for k, v in args.items() if k in spec.entities), None)
        if named is None:
            return {"status": "ok", "results": []}
        kind, value = spec.entities[named[0]], named[1]
        return {"status": "not_found", "entity": kind, "id": value, "message": f"No {value}."}

    return answer


def port_mutants(port: AgentPort) -> dict[str, Mutant]:
    """The port mutants of `port`'s agent, by name; none when its tools are not a
    `ToolRegistry` (a table the harness cannot put a regression into)."""
    registry = port.tools()
    if not isinstance(registry, ToolRegistry):
        return {}
    writes = [s for s in registry.values() if s.is_write]
    reads = [s for s in registry.values() if not s.is_write]
    guarded = [s for s in writes if s.always_confirm]
    made = [
        Mutant(
            "port-approval-skipped",
            "policy",
            "a write that must wait for a human's approval runs without asking",
            _swapped(registry, [dataclasses.replace(s, confirm="never") for s in guarded]),
            tuple(s.name for s in guarded),
        ),
        Mutant(
            "port-write-unapplied",
            "tool",
            "a write reports success but changes nothing",
            _swapped(registry, [_answering(s, lambda _: {"status": "ok"}) for s in writes]),
            tuple(s.name for s in writes),
        ),
        Mutant(
            "port-read-not-found",
            "tool",
            "a read says what it was asked about does not exist",
            _swapped(registry, [_answering(s, _not_found(s)) for s in reads]),
            tuple(s.name for s in reads),
        ),
    ]
    return {m.name: m for m in made if m.tools}


def for_agents(agents: Iterable[str]) -> Mapping[str, Mutant]:
    """The mutants that apply to a set testing `agents`: the ops copilot's own (they patch its
    modules, which the triage agent shares) when every agent is one of those, else the port
    mutants of the one agent (`port`); none for a set that mixes other agents."""
    named = set(agents)
    if named <= OWN_AGENTS:
        return registered()
    if len(named) == 1:
        return MappingProxyType(port_mutants(agent_port(named.pop())))
    return MappingProxyType({})
