"""The case's `meta`: one problem per invalid field (or one when it is missing), and -- so that
one bad field does not hide every other problem of the case -- the meta the other rules assume
instead: its valid fields, the rest at their defaults. A category that is not valid is unknown,
and the rules bound to a category skip the case.

An approval decision is held to the tool's own `Approval` model (`evalset.ApprovalDecision`);
the messages here say what a decision looks like, and which part the tool would refuse."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pydantic import ValidationError

from ..agents.ops_world import normalise_text, visible_chars
from ..core.evalset import META_KEY, Case, CaseMeta
from .context import Context, Site
from .problems import Problem, json_type
from .response_rules import meta_error

APPROVAL_SHAPE = (
    '{"decision": "approve", "rationale": "...", "approver": "..."} or {"decision": "deny"}'
)
_UNSAID = "(missing, empty or only invisible characters); the tool refuses an approval that"
_SHOWS_NOTHING = {
    "rationale": f"says nothing {_UNSAID} does not say why",
    "approver": f"names nobody {_UNSAID} does not say who gave it",
}


def _message(err: Any) -> str:
    """One validation error of `meta` in the words of this project (pydantic's otherwise)."""
    loc, given = tuple(err["loc"]), err.get("input")
    if loc == ("approval",) and err["type"] == "model_type":
        return f"must be an approval decision, {APPROVAL_SHAPE}; not {json_type(given)}"
    shows_nothing = isinstance(given, str) and not visible_chars(normalise_text(given))
    if loc[:1] == ("approval",) and loc[1:] in (("rationale",), ("approver",)) and shows_nothing:
        return _SHOWS_NOTHING[loc[1]]
    return str(err["msg"]).removeprefix("Value error, ")


def meta_field(loc: tuple[Any, ...]) -> str:
    """`meta` and an error's location, a list index in brackets: `meta.response[2].pattern`."""
    return META_KEY + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in loc)


def _located(err: Any) -> tuple[str, str]:
    """(field, message) of one validation error of `meta`."""
    said = meta_error(err)  # a response check's, worded for its kind
    if said is not None:
        return meta_field(said[0]), said[1]
    return meta_field(tuple(err["loc"])), _message(err)


def meta_problems(case: Case) -> list[tuple[str, str]]:
    """(field, message) for each way the case's meta is invalid; none when it is valid."""
    if case.meta is not None:
        return []
    raw: Any = case.raw_meta
    if raw is None:
        return [
            (
                META_KEY,
                "missing; every case needs one, with at least a category (a case added from "
                "a session in ADK's dev UI holds what the agent did: review its expectations "
                "too)",
            )
        ]
    if not isinstance(raw, dict):
        return [(META_KEY, f"must be an object, not {json_type(raw)}")]
    try:
        CaseMeta.model_validate(raw)
    except ValidationError as exc:
        found = [_located(e) for e in exc.errors()]
        return list(dict.fromkeys(found))
    return []


def valid_meta(ctx: Context, site: Site) -> Iterator[Problem]:
    for fld, message in meta_problems(site.case):
        yield site.problem(message, field=fld)
