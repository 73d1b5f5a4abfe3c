"""Rules about each expected call: a tool of the case's agent, with known and required
arguments, naming seed entities that exist (or declared negatives), and -- for a read -- that the
real tool, replayed on a fresh store, finds what it names (gold replay). A write is never
replayed (it would change the store the reads are replayed on); its arguments are held to the
checks its tool makes before writing instead, with the tool's own limits."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

from agentport import ToolSpec

from ..agents import AGENTS, default_agent
from ..agents.ops_world import closest
from ..agents.ops_writes import note_problem
from ..core.calls import ToolCall
from .context import Context, Site
from .files import NEGATIVES_FILE
from .problems import Problem, json_type

# The declared parameter types a JSON argument can have, and how a message names them. A type
# not listed here (none is, today) is not checked.
_TYPES: dict[str, tuple[type, ...]] = {
    "str": (str,),
    "int": (int,),
    "float": (int, float),
    "bool": (bool,),
    "None": (type(None),),
    "dict": (dict,),
    "list": (list,),
}
_NAMES = {"str": "a string", "int": "an integer", "float": "a number", "bool": "a boolean",
          "None": "null", "dict": "an object", "list": "an array"}  # fmt: skip


def article(word: str) -> str:
    return ("an " if word[0] in "aeiou" else "a ") + word


def _hint(value: str, candidates: Any) -> str:
    near = closest(value, candidates)
    return f" (did you mean {near!r}?)" if near else ""


def type_problem(annotation: str, value: Any) -> str | None:
    """Why `value` does not fit a parameter declared `annotation` ("str | None"), or None."""
    names = [n.strip() for n in annotation.split("|")]
    if any(n not in _TYPES for n in names):
        return None
    for name in names:
        fits = isinstance(value, _TYPES[name])
        if fits and not (isinstance(value, bool) and name in ("int", "float")):
            return None
    return f"must be {' or '.join(_NAMES[n] for n in names)}, not {json_type(value)}"


def signature_problems(spec: ToolSpec, call: ToolCall) -> Iterator[tuple[str, str]]:
    """(message, argument) for every way the call does not fit its tool's signature: unknown
    or missing arguments, and arguments of a type the parameter does not declare."""
    for arg, value in call.args.items():
        if arg not in spec.params:
            yield f"{arg!r} is not a parameter of {call.name}{_hint(arg, spec.params)}", arg
            continue
        wrong = type_problem(spec.params[arg].annotation, value)
        if wrong:
            yield wrong, arg
    for arg in sorted(spec.required - set(call.args)):
        yield f"required argument {arg!r} is missing", arg


def _structure(
    ctx: Context, spec: ToolSpec, call: ToolCall, agent: str
) -> Iterator[tuple[str, str]]:
    """(message, field) for every way the call does not fit its tool or the seed."""
    misfits = list(signature_problems(spec, call))
    yield from misfits
    for arg, kind in spec.entities.items():
        value = call.args.get(arg)
        # Entity arguments are declared `str` (or `str | None`), so what fits its type is text.
        if value is None or any(arg == bad for _, bad in misfits):
            continue
        wrong = entity_problem(ctx, kind, value, agent)
        if wrong:
            yield wrong, arg


def entity_problem(ctx: Context, kind: str, value: Any, agent: str | None = None) -> str | None:
    """Why `value` names no `kind` the seed has nor a declared negative (with the closest seed
    id), or None. Expected calls, fault and forbidden-rule arguments are held to it alike."""
    if not isinstance(value, str):
        return f"must be a string naming {article(kind)}, not {json_type(value)}"
    agent = agent or default_agent()
    key = AGENTS[agent].normalise(kind, value)
    ids = ctx.ids(kind, agent)
    if key in ctx.negatives.of(kind) or key in ids:
        return None
    return (
        f"{value!r} is not {article(kind)} in the seed{_hint(key, ids)}"
        f"; declare it in {NEGATIVES_FILE} if it is a deliberate negative"
    )


def _note(args: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """What `save_incident_note` refuses in its note before writing: the tool's own rule."""
    note = args.get("note")
    if not isinstance(note, str):
        return  # the declared-type check says so
    problem = note_problem(note)
    if problem is not None:
        yield f"{problem} ({len(note)} characters); save_incident_note refuses it", "note"


# The argument checks a write tool makes before writing, beyond its signature and its entities
# (which `_structure` checks; `policy_rules.writes_approvable` runs the shared `precheck_write`).
WRITE_ARGUMENTS = {"save_incident_note": _note}


def _defaults_spelt(spec: ToolSpec, call: ToolCall) -> Iterator[tuple[str, str]]:
    """An expected argument equal to its declared default: the scorers read the call without
    it (`matching.canonical`), but `adk eval` compares whole argument dicts, so the gold would
    fail there a model that leaves it out -- the same call to the tool."""
    for arg, value in call.args.items():
        param = spec.params.get(arg)
        if param is not None and param.is_default(value):
            yield (
                f"{arg!r} is {json.dumps(value)}, the default {call.name} takes when it is left "
                "out: leave it out (`adk eval` compares whole argument dicts)",
                arg,
            )


def _gold_replay(ctx: Context, call: ToolCall, agent: str) -> str | None:
    result = ctx.replay(call.name, call.args, agent)
    status = result.get("status")
    if status == "not_found":
        kind, value = result.get("entity"), str(result.get("id"))
        port = AGENTS[agent]
        if isinstance(kind, str) and port.normalise(kind, value) in ctx.negatives.of(kind):
            return None
        return f"gold replay: {result.get('message')}"
    if status != "ok":
        return f"gold replay: {status}: {result.get('message')}"
    return None


def expected_calls(ctx: Context, site: Site) -> Iterator[Problem]:
    meta = site.meta
    specs: Mapping[str, ToolSpec] = AGENTS[meta.agent].tools()
    for turn in site.case.turns:
        for index, call in enumerate(turn.calls, start=1):
            where = {"turn": turn.index, "call": index}
            spec = specs.get(call.name)
            if spec is None:
                message = f"{call.name!r} is not a tool of agent {meta.agent}"
                yield site.problem(message + _hint(call.name, specs), field="name", **where)
                continue
            found = list(_structure(ctx, spec, call, meta.agent))
            if not found and spec.is_write and call.name in WRITE_ARGUMENTS:
                found = list(WRITE_ARGUMENTS[call.name](call.args))
            for message, arg in found:
                yield site.problem(message, field=f"{call.name}.{arg}", **where)
            for message, arg in _defaults_spelt(spec, call):
                yield site.problem(message, field=f"{call.name}.{arg}", **where)
            # Replay only reads that are well-formed; the problems above already say why not.
            if not found and not spec.is_write:
                message = _gold_replay(ctx, call, meta.agent)
                if message:
                    yield site.problem(message, field=call.name, **where)
