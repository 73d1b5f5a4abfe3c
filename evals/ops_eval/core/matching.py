"""Whether an actual tool call matches an expected one under a case's argument matchers, and
whether a turn's calls match its expected calls in a match mode.

ADK compares calls by whole-argument equality. A case's `meta.contracts.args` loosens that per
tool and argument (`contracts.Matcher`); every argument without a matcher is still compared
exactly, so with no matchers this is ADK's comparison. `normalised` uses the tools' own
normalisation (`ops_copilot.seed.loading.normalise`) with the entity kind the tool declares for the
argument -- the same declaration the validator reads -- so a case accepts exactly the spellings
the tool itself would resolve.

Calls are compared as the tool sees them (`canonical`): every optional parameter with the value
the tool takes -- the one given, else its declared default -- so an argument spelt with its
default is the same call as one that leaves it out (`list_incidents(service=None,
status="open")` is `list_incidents(status="open")`), a matcher on such an argument sees the
value the tool gets, and every other difference stays one. The scorers read a trial's calls,
expected calls and injected faults in that form (`canonical_trial`), ADK's own evaluator is
handed its invocations in it (`scorers/trajectory.py`), and the validator keeps expected calls
free of spelt defaults, the form `adk eval` reads.

Modes: EXACT, IN_ORDER and ANY_ORDER as ADK's `TrajectoryEvaluator` defines them, and SUBSET
(every actual call is among the expected) / SUPERSET (every expected call is among the actual)
as agentevals reads them. SUPERSET is the same test as ANY_ORDER (ADK's ANY_ORDER already allows
extra calls); it is kept for agentevals' vocabulary. Each call is used at most once; the
unordered modes count a maximum one-to-one pairing, so a loose matcher that makes a greedy
pairing use up the wrong actual call cannot fail a turn that has a full pairing.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from agentport import ToolSpec

from ..agents import AGENTS, default_agent
from ..agents.ops_world import normalise
from .calls import ToolCall, in_order
from .contracts import (
    AnyValue,
    ArgMatchers,
    Contains,
    Exact,
    Matcher,
    MatchMode,
    Normalised,
    OneOf,
    Regex,
)

if TYPE_CHECKING:
    from .trial import TrialView

Kinds = Mapping[str, Mapping[str, str]]
"""tool name -> argument name -> the entity kind the tool declares for it."""

Same = Callable[[ToolCall, ToolCall], bool]
"""(expected, actual) -> whether they match."""

MISSING = object()
T = TypeVar("T")


def entity_kinds(agent: str | None = None) -> dict[str, dict[str, str]]:
    """The entity kind of every entity argument of the agent's tools, from their declarations."""
    tools = AGENTS[agent or default_agent()].tools()
    return {name: dict(spec.entities) for name, spec in tools.items()}


def as_taken(name: str, args: Mapping[str, Any], specs: Mapping[str, ToolSpec]) -> dict[str, Any]:
    """The arguments a call of tool `name` runs with (`ToolSpec.as_taken`); an unknown tool's
    as given."""
    spec = specs.get(name)
    return spec.as_taken(args) if spec is not None else dict(args)


def canonical(call: ToolCall, specs: Mapping[str, ToolSpec]) -> ToolCall:
    """`call` as its tool takes it (`as_taken`); its result and id are kept."""
    args = as_taken(call.name, call.args, specs)
    if args == call.args:
        return call
    return ToolCall(call.name, args, id=call.id, result=call.result)


def canonical_trial(trial: TrialView) -> TrialView:
    """A copy of `trial` whose turns hold every call -- made, expected, paused, pending, and the
    calls faults were injected into -- as its tool takes it (`canonical`); the trial itself, and
    so the run record, keeps them as the model sent them."""
    specs = AGENTS[trial.case.meta.agent if trial.case.meta else default_agent()].tools()

    def calls(found: list[ToolCall]) -> list[ToolCall]:
        return [canonical(c, specs) for c in found]

    turns = [
        turn.model_copy(
            update={
                "calls": calls(turn.calls),
                "expected": calls(turn.expected),
                "paused": calls(turn.paused),
                "pending": calls(turn.pending),
                "faults": [
                    f.model_copy(update={"args": as_taken(f.tool, f.args, specs)})
                    for f in turn.faults
                ],
            }
        )
        for turn in trial.turns
    ]
    return dataclasses.replace(trial, turns=turns)


def free_text(value: str) -> str:
    """Case- and whitespace-insensitive form of free text (`contains`, untyped `normalised`)."""
    return " ".join(value.split()).casefold()


def same_value(kind: str | None, want: Any, got: Any) -> bool:
    """Equal as the tools read them: an entity id normalised for its kind, other text case- and
    whitespace-insensitive, anything else exactly (the `normalised` matcher; fault `args`)."""
    if isinstance(want, str) and isinstance(got, str):
        if kind is None:
            return free_text(want) == free_text(got)
        return normalise(kind, want) == normalise(kind, got)  # type: ignore[arg-type]
    return want == got


def _shown(value: Any) -> str:
    return "nothing" if value is MISSING else repr(value)


def _one_of(values: Sequence[Any], actual: Any, kind: str | None) -> bool:
    """`actual` is one of `values`; for an entity argument both sides are normalised as the tool
    (and the validator) normalise them, so `" Inventory"` is one of `["inventory"]`."""
    if actual in values:
        return True
    if kind is None or not isinstance(actual, str):
        return False
    key = normalise(kind, actual)  # type: ignore[arg-type]
    return any(isinstance(v, str) and normalise(kind, v) == key for v in values)  # type: ignore[arg-type]


def arg_problem(matcher: Matcher, expected: Any, actual: Any, kind: str | None) -> str | None:
    """Why `actual` does not satisfy `matcher` (with `expected` the case's own value), or None.
    `MISSING` stands for an argument that was not given."""
    if isinstance(matcher, AnyValue):
        return None
    if isinstance(matcher, Exact):
        return None if actual == expected else f"{_shown(actual)} is not {_shown(expected)}"
    if actual is MISSING:
        return f"missing ({matcher.match})"
    if isinstance(matcher, OneOf):
        return (
            None
            if _one_of(matcher.values, actual, kind)
            else (f"{actual!r} is not one of {matcher.values}")
        )
    if not isinstance(actual, str):
        return f"{actual!r} is not text ({matcher.match})"
    if isinstance(matcher, Regex):
        try:
            if re.fullmatch(matcher.pattern, actual):
                return None
        except re.error as exc:  # the validator refuses it; a check never crashes on it
            return f"regex /{matcher.pattern}/ does not compile: {exc}"
        return f"{actual!r} does not match /{matcher.pattern}/"
    if isinstance(matcher, Contains):
        if free_text(matcher.text) in free_text(actual):
            return None
        return f"{actual!r} does not contain {matcher.text!r}"
    assert isinstance(matcher, Normalised)
    if not isinstance(expected, str):
        return f"{actual!r} is not {_shown(expected)}"
    same = same_value(kind, expected, actual)
    return None if same else f"{actual!r} is not {expected!r} after normalisation"


def mismatch(
    expected: ToolCall, actual: ToolCall, matchers: ArgMatchers, kinds: Kinds | None = None
) -> list[str]:
    """Why `actual` does not match `expected`, one reason per argument; empty when it matches."""
    if expected.name != actual.name:
        return [f"{actual.name} is not {expected.name}"]
    kinds = entity_kinds() if kinds is None else kinds
    mine = matchers.get(expected.name, {})
    tool_kinds = kinds.get(expected.name, {})
    reasons = []
    for arg in dict.fromkeys([*expected.args, *actual.args]):
        matcher = mine.get(arg, Exact(match="exact"))
        want, got = expected.args.get(arg, MISSING), actual.args.get(arg, MISSING)
        problem = arg_problem(matcher, want, got, tool_kinds.get(arg))
        if problem:
            reasons.append(f"{arg}: {problem}")
    return reasons


def call_matches(
    expected: ToolCall, actual: ToolCall, matchers: ArgMatchers, kinds: Kinds | None = None
) -> bool:
    """Same tool, and every argument satisfies its matcher (exact where none is declared)."""
    return not mismatch(expected, actual, matchers, kinds)


def matcher_for(matchers: ArgMatchers, kinds: Kinds | None = None) -> Same:
    """A call comparison bound to one case's matchers (and the agent's entity kinds)."""
    kinds = entity_kinds() if kinds is None else kinds
    return lambda e, a: call_matches(e, a, matchers, kinds)


def pairing(
    expected: Sequence[T], actual: Sequence[T], same: Callable[[T, T], bool]
) -> dict[int, int]:
    """A maximum one-to-one pairing, expected index -> actual index (augmenting paths): calls,
    or any other items `same(expected, actual)` compares (the end state's notes)."""
    owner: dict[int, int] = {}  # actual index -> expected index

    def place(e: int, seen: set[int]) -> bool:
        for a, call in enumerate(actual):
            if a in seen or not same(expected[e], call):
                continue
            seen.add(a)
            if a not in owner or place(owner[a], seen):
                owner[a] = e
                return True
        return False

    for e in range(len(expected)):
        place(e, set())
    return {e: a for a, e in owner.items()}


def mode_holds(
    mode: MatchMode, expected: Sequence[ToolCall], actual: Sequence[ToolCall], same: Same
) -> bool:
    """Whether one turn's calls match its expected calls in `mode`."""
    if mode == "EXACT":
        return len(expected) == len(actual) and all(map(same, expected, actual))
    if mode == "IN_ORDER":
        return in_order(actual, expected, same)
    paired = len(pairing(expected, actual, same))
    if mode in ("ANY_ORDER", "SUPERSET"):
        return paired == len(expected)
    if mode == "SUBSET":
        return paired == len(actual)
    raise ValueError(f"unknown match mode {mode!r}")


def first_unmatched(
    expected: Sequence[ToolCall],
    actual: Sequence[ToolCall],
    matchers: ArgMatchers,
    kinds: Kinds | None = None,
) -> str:
    """Why a turn fails, for a detail: the first expected call no actual call matches, and why
    the nearest one (same tool) does not."""
    kinds = entity_kinds() if kinds is None else kinds
    same = matcher_for(matchers, kinds)
    paired = pairing(expected, actual, same)
    for e, call in enumerate(expected):
        if e in paired:
            continue
        near = next((a for a in actual if a.name == call.name), None)
        if near is None:
            made = ", ".join(a.show() for a in actual) or "no call"
            return f"expected {call.show()}, got {made}"
        return f"expected {call.show()}, got {near.show()}: " + "; ".join(
            mismatch(call, near, matchers, kinds)
        )
    extra = [a for i, a in enumerate(actual) if i not in paired.values()]
    if extra:
        return f"unexpected {extra[0].show()}"
    return "the calls are out of order"
