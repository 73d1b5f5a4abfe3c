"""Rules about trajectory contracts (`contracts.py`): each argument matcher names a tool of the
case's agent and a parameter that tool declares; a regex compiles and matches at least one seed
entity of the argument's kind; `one_of` values exist in the seed or are declared negatives; and
no matcher contradicts the case's own expected calls -- the value the case expects must satisfy
it, or the case could not pass with its own gold trajectory.

A set-level `contracts.yaml` (beside a set, or the project's for an ad-hoc set) is read here (its
shape, once per file; each error of a broken file is malformed input naming its path), and its
matchers are held to the same checks, merged under each case's own; a contradiction that a set-level
matcher causes is reported under `contracts.yaml args.<tool>.<arg>`. Semantic checks of the other
contract kinds (forbidden calls, budgets, faults) live in rules of their own.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from agentport import ToolSpec
from opskit.textfiles import resolved

from ..agents import AGENTS
from ..core.calls import ToolCall
from ..core.contracts import ArgMatchers, OneOf, Regex, set_contracts_path
from ..core.evalset import EvalSetFile, display_path
from ..core.matching import arg_problem
from .call_rules import WRITE_ARGUMENTS, type_problem
from .context import Context, Site
from .files import NEGATIVES_FILE
from .problems import Problem


def _matcher_problems(
    ctx: Context, specs: Mapping[str, tuple[str, ToolSpec]], args: ArgMatchers, owner: str
) -> Iterator[tuple[str, str]]:
    """(message, field) for matchers that name no tool or parameter, or no entity of the seed
    of the agent whose tool it is (`specs`: tool -> (agent, its spec))."""
    for tool, by_arg in args.items():
        agent, spec = specs.get(tool, ("", None))
        if spec is None:
            yield f"{tool!r} is not a tool of {owner}", f"contracts.args.{tool}"
            continue
        for arg, matcher in by_arg.items():
            where = f"contracts.args.{tool}.{arg}"
            if arg not in spec.params:
                yield f"{arg!r} is not a parameter of {tool}", where
                continue
            kind = spec.entities.get(arg)
            if isinstance(matcher, Regex):
                try:
                    pattern = re.compile(matcher.pattern)
                except re.error as exc:
                    yield f"regex /{matcher.pattern}/ does not compile: {exc}", where
                    continue
                if kind and not any(pattern.fullmatch(i) for i in ctx.ids(kind, agent)):
                    yield f"regex /{matcher.pattern}/ matches no {kind} in the seed", where
            if isinstance(matcher, OneOf) and kind:
                known = ctx.ids(kind, agent) | ctx.negatives.of(kind)  # type: ignore[arg-type]
                normalise = AGENTS[agent].normalise
                for value in matcher.values:
                    if not isinstance(value, str) or normalise(kind, value) not in known:
                        yield (
                            f"one_of value {value!r} is not {kind} in the seed nor a negative "
                            f"declared in {NEGATIVES_FILE}",
                            where,
                        )


def contracts_file(ctx: Context, sets: list[EvalSetFile]) -> Iterator[Problem]:
    """Each `contracts.yaml` the sets use (once, however many share it): its shape, one problem
    per error, and its matchers against the tools of every agent (a set-level matcher applies
    to whichever agent a case targets)."""
    files = {resolved(set_contracts_path(es.path)): es for es in sets}
    for es in files.values():
        contracts, broken = es.set_contracts
        shown = display_path(set_contracts_path(es.path))
        for error in broken:
            yield Problem(shown, error.message, field=error.field, malformed=True)
        if contracts is None:
            continue
        specs = {n: (a, s) for a, entry in AGENTS.items() for n, s in entry.tools().items()}
        for message, where in _matcher_problems(ctx, specs, contracts.args, "any agent"):
            yield Problem(shown, message, field=where)


def _reported(
    ctx: Context, agent: str, spec: ToolSpec, call: ToolCall, arg: str, kind: str | None
) -> bool:
    """Whether `expected_calls` already reports this argument's value (an entity `agent`'s seed
    lacks, a value its write tool refuses): one problem per cause, not a contradiction on top."""
    value = call.args[arg]
    if kind and isinstance(value, str):
        known = ctx.ids(kind, agent) | ctx.negatives.of(kind)  # type: ignore[arg-type]
        if AGENTS[agent].normalise(kind, value) not in known:  # type: ignore[arg-type]
            return True
    check = WRITE_ARGUMENTS.get(call.name) if spec.is_write else None
    return check is not None and any(bad == arg for _, bad in check(call.args))


def case_contracts(ctx: Context, site: Site) -> Iterator[Problem]:
    """The case's own matchers against its agent and the seed; the matchers that apply to it
    (the set's under its own) against its expected calls."""
    meta = site.meta
    specs = AGENTS[meta.agent].tools()
    own = meta.contracts.args
    reported = set()
    mine = {n: (meta.agent, s) for n, s in specs.items()}
    for message, where in _matcher_problems(ctx, mine, own, f"agent {meta.agent}"):
        reported.add(where)
        yield site.problem(message, field=where)
    base, _ = site.evalset.set_contracts
    merged = meta.contracts.merged_over(base).args
    for turn in site.case.turns:
        for index, call in enumerate(turn.calls, start=1):
            spec = specs.get(call.name)
            for arg, matcher in merged.get(call.name, {}).items():
                if spec is None or arg not in spec.params:
                    continue
                if f"contracts.args.{call.name}.{arg}" in reported:
                    continue  # its problem is said once, above
                value: Any = call.args.get(arg)
                if arg in spec.required and arg not in call.args:
                    continue  # the signature rule says it is missing
                if arg in call.args and type_problem(spec.params[arg].annotation, value):
                    continue  # the signature rule says it has the wrong type
                kind = spec.entities.get(arg)
                if arg in call.args and _reported(ctx, meta.agent, spec, call, arg, kind):
                    continue
                wrong = arg_problem(matcher, value, value, kind) if arg in call.args else None
                if arg not in call.args and matcher.match not in ("exact", "any"):
                    wrong = f"the expected call gives no {arg} for the {matcher.match} matcher"
                if wrong:
                    own_matcher = arg in own.get(call.name, {})
                    yield site.problem(
                        f"{matcher.match} matcher contradicts the expected call: {wrong}",
                        field=(
                            f"contracts.args.{call.name}.{arg}"
                            if own_matcher
                            else f"contracts.yaml args.{call.name}.{arg}"
                        ),
                        turn=turn.index,
                        call=index,
                    )
