"""Deterministic mutants of the agent: each a small, realistic regression of its tools, guards or
write policy that leaves it runnable, declared once (in `tools` and `guards`) with the real bug
it stands for; this module holds what a mutant is, the registry and the patching helpers.

`ops-eval mutate` (`mutation/offline.py`) plays an eval set under each mutant with the scripted
oracle and asks whether the set notices: a mutant is *killed* when some trial fails, and
*survives* when every trial passes -- a blind spot of the eval set. A mutant patches the agent's
own modules for the length of a `with mutant.applied():` block; the agent is built per trial,
so every trial played inside the block meets the regression, and none outside it does.

A tool's result is changed by wrapping the tool's function in the tool table the agent is built
from (`ops_copilot.agent.tool_specs`); the harness's own view of the tools (validation, the
scorers' policy) reads the declarations and is left as it is, as a regression in the agent
would leave it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal

Kind = Literal["tool", "guard", "policy", "instruction"]
Patch = Callable[[contextlib.ExitStack], None]


@dataclass(frozen=True)
class Mutant:
    name: str
    kind: Kind
    bug: str
    """The real bug it stands for, in one line."""
    patch: Patch
    tools: tuple[str, ...] = ()
    """The tools whose calls meet the regression (none: it acts on every answer)."""

    @contextlib.contextmanager
    def applied(self) -> Iterator[None]:
        """The agent with this regression, for the block."""
        with contextlib.ExitStack() as stack:
            self.patch(stack)
            yield


_REGISTRY: dict[str, Mutant] = {}
OWN_AGENTS = frozenset({"ops_copilot", "triage_report"})
"""The agents whose modules the registered mutants patch (`tools`, `guards`)."""
_LOADED: list[bool] = []


def registered() -> Mapping[str, Mutant]:
    """Every mutant of this package, by name, in declaration order (its modules load on first
    call, tools first). TypeError when they are not exactly the names `validation.gate_config`
    declares (`MUTANTS`, what `validate` holds gate.yaml's `mutation` block to: declared below
    this package, so that validation never imports it)."""
    if not _LOADED:  # each module declares its mutants: tools first, then guards and policy
        import importlib

        from ...validation.gate_config import MUTANTS

        for module in ("tools", "guards"):
            importlib.import_module(f"{__package__}.{module}")
        if tuple(_REGISTRY) != MUTANTS:
            raise TypeError(
                f"the mutants declared ({', '.join(_REGISTRY)}) are not validation.gate_config's "
                f"MUTANTS ({', '.join(MUTANTS)}), in the same order"
            )
        _LOADED.append(True)
    return MappingProxyType(_REGISTRY)


def mutant(name: str, tools: tuple[str, ...], kind: Kind, bug: str) -> Callable[[Patch], Patch]:
    def register(patch: Patch) -> Patch:
        if name in _REGISTRY:
            raise TypeError(f"mutant {name!r} declared twice")
        _REGISTRY[name] = Mutant(name, kind, bug, patch, tools)
        return patch

    return register


def set_for(stack: contextlib.ExitStack, owner: Any, attribute: str, value: Any) -> None:
    """`owner.attribute = value` until the stack closes."""
    before = getattr(owner, attribute)
    setattr(owner, attribute, value)
    stack.callback(setattr, owner, attribute, before)


def wrap_tool(stack: contextlib.ExitStack, tool: str, around: Callable[..., Any]) -> None:
    """Tool `tool` runs as `around(inner, args, kwargs)` in the agent built inside the block --
    `inner` the tool itself -- with its signature, docstring and declaration unchanged."""
    from ...agents.ops_agent import agent

    original = agent.tool_specs

    def specs() -> Any:
        found = dict(original())
        spec = found[tool]
        inner = spec.func

        @functools.wraps(inner)
        def mutated(*args: Any, **kwargs: Any) -> Any:
            return around(inner, args, kwargs)

        found[tool] = dataclasses.replace(spec, func=mutated)
        return found

    set_for(stack, agent, "tool_specs", specs)


def wrap_result(
    stack: contextlib.ExitStack, tool: str, change: Callable[[dict[str, Any], dict[str, Any]], Any]
) -> None:
    """Tool `tool` answers `change(result, kwargs)` (or the result itself, when it returns None)
    in the agent built inside the block."""

    def around(inner: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        result = inner(*args, **kwargs)
        changed = change(result, kwargs)
        return result if changed is None else changed

    wrap_tool(stack, tool, around)


def workspace_of(kwargs: dict[str, Any]) -> Any:
    from ...agents.ops_state import workspace_for

    return workspace_for(kwargs["tool_context"])
