"""A tool's declaration, made beside its definition: whether it reads or writes, when it needs a
human approval, which entity kind each argument names, and which keys of its result carry
untrusted text (text people or systems wrote, not a seed field).

Everything that needs a table of an agent's tools -- the agent's tool list, the eval-set
validator, the policy scorers, the red team, the docs -- derives it from these declarations
instead of keeping a list of its own. `ToolRegistry.declare` also guards the boundary every tool
shares: an argument holding text that cannot be encoded (a lone surrogate such as `"\\ud800"`,
which a model's tool-call JSON can carry) is answered with an `invalid_argument` result naming
it, before the tool runs.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
from collections.abc import Callable, Collection, Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

Effect = Literal["read", "write"]
# When a write needs a human approval: every time, or only once the session has read untrusted
# text (an instruction planted in a log cannot then write anything unseen).
Confirm = Literal["never", "always", "after_untrusted"]
CONTEXT_PARAM = "tool_context"


@dataclass(frozen=True)
class Param:
    name: str
    required: bool
    annotation: str
    default: Any = None
    """What the tool takes when the argument is left out (an optional parameter's only)."""

    def is_default(self, value: Any) -> bool:
        """`value` is what the tool takes when the argument is left out: the same value of the
        same type (`False` is not `0`), so the call means the same to the tool either way."""
        return not self.required and type(value) is type(self.default) and value == self.default


@dataclass(frozen=True)
class ToolSpec:
    """One tool's declaration, derived facts included (parameters come from the signature)."""

    name: str
    func: Callable[..., dict[str, Any]]
    effect: Effect
    entities: Mapping[str, str]
    confirm: Confirm
    untrusted_keys: tuple[str, ...]
    """The result keys whose strings are untrusted text, at any depth; the rest of a result
    (ids, statuses, severities, names) is seed fields the tool looked up."""
    params: Mapping[str, Param] = field(default_factory=dict)

    @property
    def untrusted(self) -> bool:
        """Its result carries untrusted text."""
        return bool(self.untrusted_keys)

    @property
    def is_write(self) -> bool:
        return self.effect == "write"

    @property
    def always_confirm(self) -> bool:
        """A guarded write: it never runs without a human approval."""
        return self.confirm == "always"

    @property
    def required(self) -> frozenset[str]:
        return frozenset(p.name for p in self.params.values() if p.required)

    def as_taken(self, args: Mapping[str, Any]) -> dict[str, Any]:
        """The arguments a call with `args` runs with: those given, and every optional parameter
        left out at its default -- so two calls that mean the same to the tool read the same."""
        left_out = {
            p.name: p.default for p in self.params.values() if not p.required and p.name not in args
        }
        return {**args, **left_out}


def unencodable(value: Any, path: str) -> str | None:
    """Where in an argument's value (`path`, then `[i]` or `.key`) there is text that UTF-8
    cannot encode, and at which character; None when there is none."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            return f"{path} (character {exc.start + 1}, {value[exc.start]!r})"
        return None
    items: Any = ()
    if isinstance(value, dict):
        items = ((f"{path}.{k}", v) for k, v in value.items())
    elif isinstance(value, list | tuple):
        items = ((f"{path}[{i}]", v) for i, v in enumerate(value))
    for where, inner in items:
        found = unencodable(inner, where)
        if found:
            return found
    return None


def _encodable_arguments(func: Callable[..., dict[str, Any]]) -> Callable[..., dict[str, Any]]:
    """`func`, refusing (as its result, which the model sees) an argument holding text that
    cannot be encoded; ADK reads the signature and docstring through `functools.wraps`."""

    @functools.wraps(func)
    def tool(*args: Any, **kwargs: Any) -> dict[str, Any]:
        for name, value in kwargs.items():
            where = None if name == CONTEXT_PARAM else unencodable(value, name)
            if where:
                return {
                    "status": "invalid_argument",
                    "argument": name,
                    "message": f"{where} is not valid Unicode text (a lone surrogate cannot be "
                    "encoded); nothing was done. Send the text without it.",
                }
        return func(*args, **kwargs)

    return tool


class ToolRegistry(Mapping[str, ToolSpec]):
    """One agent's declared tools by name, in declaration order, over the entity kinds of its
    seed. An agent built from it (its tool list, its callbacks) reads the declaration current at
    the time, so `replaced` changes what the agent does -- how mutation testing puts a regression
    into an agent the project did not write."""

    def __init__(self, entity_kinds: Collection[str]) -> None:
        self.entity_kinds = frozenset(entity_kinds)
        self._tools: dict[str, ToolSpec] = {}

    @property
    def tools(self) -> Mapping[str, ToolSpec]:
        return self

    def __getitem__(self, name: str) -> ToolSpec:
        return self._tools[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._tools)

    def __len__(self) -> int:
        return len(self._tools)

    @contextlib.contextmanager
    def replaced(self, spec: ToolSpec) -> Iterator[None]:
        """`spec` in place of the declared tool of its name, for the block."""
        before = self._tools[spec.name]
        self._tools[spec.name] = spec
        try:
            yield
        finally:
            self._tools[spec.name] = before

    def declare(
        self,
        *,
        effect: Effect,
        entities: Mapping[str, str] | None = None,
        confirm: Confirm = "never",
        untrusted: tuple[str, ...] = (),
    ) -> Callable[[Callable[..., dict[str, Any]]], Callable[..., dict[str, Any]]]:
        """Register a tool function with its effect, entity arguments, approval need and the
        keys of its result that hold untrusted text."""
        entities = dict(entities or {})

        def register(func: Callable[..., dict[str, Any]]) -> Callable[..., dict[str, Any]]:
            sig = inspect.signature(func)
            params = {
                name: Param(
                    name=name,
                    required=p.default is inspect.Parameter.empty,
                    annotation=str(p.annotation),
                    default=None if p.default is inspect.Parameter.empty else p.default,
                )
                for name, p in sig.parameters.items()
                if name != CONTEXT_PARAM
            }
            where = func.__name__
            for arg, kind in entities.items():
                if arg not in params:
                    raise TypeError(f"{where}: declared entity argument {arg!r} is not a param")
                if kind not in self.entity_kinds:
                    raise TypeError(f"{where}: unknown entity kind {kind!r}")
            if confirm != "never" and effect != "write":
                raise TypeError(f"{where}: only a write can require confirmation")
            if where in self._tools:
                raise TypeError(f"tool {where!r} declared twice")
            tool = _encodable_arguments(func)
            self._tools[where] = ToolSpec(
                name=where,
                func=tool,
                effect=effect,
                entities=MappingProxyType(entities),
                confirm=confirm,
                untrusted_keys=tuple(untrusted),
                params=MappingProxyType(params),
            )
            return tool

        return register
