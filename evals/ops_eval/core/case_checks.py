"""A case's response checks read with the case around them: which checks of a kind it declares,
the turn each reads, and each held again to its model (`revalidated`) before a scorer trusts it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from .response_checks import CHECK_MODELS, KINDS, Check, _Check

if TYPE_CHECKING:
    from .evalset import Case


def declared(case: Case) -> list[Any]:
    """The case's `meta.response` as it stands (empty without a valid meta)."""
    meta = case.meta
    return list(getattr(meta, "response", None) or []) if meta is not None else []


def kind_of(item: Any) -> str | None:
    """A declared item's kind, whether a check model or (in a meta built without validation)
    a plain mapping."""
    kind = item.get("scorer") if isinstance(item, dict) else getattr(item, "scorer", None)
    return kind if isinstance(kind, str) else None


def positioned(case: Case, kind: str) -> list[tuple[int, Any]]:
    """(0-based position in `meta.response`, check) of every check of `kind`."""
    return [(i, item) for i, item in enumerate(declared(case)) if kind_of(item) == kind]


def checks_of(case: Case, kind: str) -> list[Check]:
    """Every check of `kind` the case declares, in order (empty: the scorer is not
    applicable). Read from a validated set, each is its kind's model (`checks_of(case,
    "llm_judge")` -> LlmJudgeCheck); a meta built in code without validation may hold anything
    -- hold each to `revalidated` before trusting it."""
    return [item for _, item in positioned(case, kind)]


def turn_of(case: Case, check: Any) -> int:
    """The 1-based case turn a check reads: its own, else the case's last."""
    turn = getattr(check, "turn", None)
    return turn if turn is not None else len(case.turns)


def turn_problem(case: Case, check: Any) -> str | None:
    """Why the check's turn is not a turn of the case, or None."""
    turns = len(case.turns)
    turn = getattr(check, "turn", None)
    if turns == 0:
        return "the case has no turns to check"
    if turn is not None and not (isinstance(turn, int) and 1 <= turn <= turns):
        return f"turn {turn!r} is not a turn of the case (it has {turns})"
    return None


def revalidated(case: Case, check: Any) -> _Check | str:
    """The check as its model validates it afresh -- its own rules held again, and its turn
    held to the case -- or why it is not a valid declaration for this case. A run's scorers
    ask this of every check: a Plan built in code may hold a check no validator saw (made with
    `model_construct`, or a plain mapping), and such a check gives an error, never a verdict."""
    kind = kind_of(check)
    model = CHECK_MODELS.get(kind or "")
    if model is None:
        return f"{kind!r} is not a response scorer; known: {', '.join(KINDS)}"
    raw = check if isinstance(check, dict) else getattr(check, "__dict__", {})
    try:
        fresh = model.model_validate(dict(raw))
    except ValidationError as exc:
        return "; ".join(
            f"{'.'.join(map(str, e['loc'])) or kind}: {e['msg'].removeprefix('Value error, ')}"
            for e in exc.errors()
        )
    return turn_problem(case, fresh) or fresh


def describe(check: Any) -> str:
    """`check.show()`, or the kind alone for an item that cannot show itself (not a check
    model, or one built without a field its `show` reads)."""
    try:
        return check.show()
    except (AttributeError, TypeError, ValueError):
        return str(kind_of(check))
