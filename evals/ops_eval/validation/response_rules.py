"""Rules about a case's response checks (`meta.response`, `response_checks.py`).

The shape of each check -- a known scorer, its fields and no others, a non-empty text, a regex
that compiles, a range lo..hi in order, a known answer model, a non-empty rubric -- is held by
its pydantic model when the meta is read; `meta_error` words those problems for `meta_rules`,
each at its field (`meta.response[2].pattern`). What needs the case around a check is here:

- its turn is a turn of the case;
- its turn does not end at an approval pause: a turn whose expected calls include a write that
  waits for a human (`confirm="always"`, or `"after_untrusted"` once the session has read
  untrusted text), in a case with no `meta.approval` decision to answer it, ends with the pause
  text the harness writes (`calls.pause_text`) -- and a check never passes on that, so no right
  answer could pass it (`scorers._response.answer_at`);
- the case's own reference for that turn passes every deterministic check (the reference is the
  gold answer: a check it fails is a check no right answer passes, or a reference that is
  wrong). It is held by the scorers' own check functions (`scorers._response.holds`), so the
  gold and the agent's answers are judged alike. A judged check (`llm_judge`) is not.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..agents import AGENTS
from ..core.case_checks import turn_of, turn_problem
from ..core.response_checks import CHECK_MODELS, JUDGED, KINDS
from .context import Context, Site
from .problems import Problem, json_type

RESPONSE_KEY = "response"
_EXAMPLE = '{"scorer": "contains", "text": "INC-002"}'


def _fields(kind: str) -> str:
    own = [name for name in CHECK_MODELS[kind].model_fields if name not in ("scorer", "turn")]
    return ", ".join([*own, "turn"])


def _a(kind: str) -> str:
    return f"{'an' if kind[0] in 'aeiou' else 'a'} {kind}"


_TYPES = {"bool_type": "true or false", "int_type": "an integer", "string_type": "a string"}


def _kinds() -> str:
    return ", ".join(KINDS)


def strip_tag(loc: tuple[Any, ...]) -> tuple[Any, ...]:
    """A `meta` error location without the union tag pydantic puts after a response check's
    index: ("response", 2, "regex", "pattern") -> ("response", 2, "pattern")."""
    if len(loc) >= 3 and loc[0] == RESPONSE_KEY and isinstance(loc[1], int) and loc[2] in KINDS:
        return (*loc[:2], *loc[3:])
    return loc


def meta_error(err: Any) -> tuple[tuple[Any, ...], str] | None:
    """(location, message) for a validation error of `meta.response`, in this project's words;
    None for an error elsewhere in `meta` (or one pydantic already words well)."""
    loc = tuple(err["loc"])
    if loc[:1] != (RESPONSE_KEY,):
        return None
    if len(loc) == 1:
        return (
            loc,
            f"must be a list of checks, e.g. [{_EXAMPLE}]; not {json_type(err.get('input'))}",
        )
    kind = loc[2] if len(loc) >= 3 and loc[2] in KINDS else None
    where = strip_tag(loc)
    given = err.get("input")
    if err["type"] == "union_tag_invalid":
        from ..agents.ops_world import closest

        tag = given.get("scorer") if isinstance(given, dict) else None
        near = closest(str(tag), KINDS) if isinstance(tag, str) else None
        hint = f" (did you mean {near!r}?)" if near else ""
        return (*where, "scorer"), f"{tag!r} is not a response scorer{hint}; known: {_kinds()}"
    if err["type"] == "union_tag_not_found":
        return (*where, "scorer"), f"missing: every check names its scorer, one of {_kinds()}"
    if err["type"] == "model_attributes_type" and len(where) == 2:
        return where, f"must be a check object, e.g. {_EXAMPLE}; not {json_type(given)}"
    if err["type"] == "extra_forbidden" and kind is not None:
        return (
            where,
            f"{loc[-1]!r} is not a field of {_a(kind)} check (its fields: {_fields(kind)})",
        )
    if err["type"] == "missing" and kind is not None:
        return where, f"missing: {_a(kind)} check needs it (its fields: {_fields(kind)})"
    if err["type"] in _TYPES:
        return where, f"must be {_TYPES[err['type']]}, not {json_type(given)}"
    if where[-1:] == ("turn",) and err["type"] == "greater_than_equal":
        return where, f"turns count from 1; {given!r} is not a turn"
    return where, str(err["msg"]).removeprefix("Value error, ")


def pausing_turns(site: Site) -> set[int]:
    """The turns an agent that follows the case ends at an approval pause: each expects a write
    that waits for a human -- always, or after untrusted text the session has read (in an
    earlier call, of this turn or one before, as `read_untrusted_text` in
    `ops_copilot.store.writes` decides) -- and the case has no approval decision to answer it
    (`play.play_turn`)."""
    if site.meta.approval is not None:
        return set()
    specs = AGENTS[site.meta.agent].tools()
    pausing: set[int] = set()
    untrusted = False
    for turn in site.case.turns:
        for call in turn.calls:
            spec = specs.get(call.name)
            if spec is None:
                continue  # an unknown tool is `expected_calls`' problem
            if spec.confirm == "always" or (spec.confirm == "after_untrusted" and untrusted):
                pausing.add(turn.index)
            untrusted = untrusted or spec.untrusted
    return pausing


def response_checks(ctx: Context, site: Site) -> Iterator[Problem]:
    """Each valid check's turn is a turn of the case that does not end at an approval pause, and
    the case's reference for that turn passes it (deterministic kinds). Checks of an invalid
    `meta.response` are reported by `valid_meta`; an empty or mistyped reference by `turn_texts`
    and ADK's schema."""
    from ..scorers._response import holds

    case = site.case
    if not case.turns or case.start is not None:
        return  # `has_turns` says so; a scenario's checks grade no turn (`scenario_rules`)
    pausing = pausing_turns(site)
    for position, check in enumerate(site.meta.response):
        where = f"meta.{RESPONSE_KEY}[{position}]"
        wrong = turn_problem(case, check)
        if wrong:
            yield site.problem(wrong, field=f"{where}.turn")
            continue
        index = turn_of(case, check)
        if index in pausing:
            yield site.problem(
                f"turn {index} ends at an approval pause (the harness writes its response), so "
                "no answer of the agent's can pass this check",
                field=where,
            )
            continue
        if check.scorer in JUDGED:
            continue
        turn = case.turns[index - 1]
        if not turn.reference or "final_response" in turn.mistyped:
            continue
        why = holds(check, turn.reference)
        if why:
            yield site.problem(
                f"the case's own reference response fails {check.show()}: {why}",
                turn=index,
                field=where,
            )
