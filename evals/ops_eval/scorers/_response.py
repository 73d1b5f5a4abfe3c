"""What every response scorer shares: one registration, one reading of the trial, one JSON.

A response scorer module declares only its check, as a function `(check, answer) -> why it
fails, or None`, with `@response_scorer(kind=..., passes_when=...)`. That registers a scorer
named after the kind (`gate="all"`) which, on a trial:

- is `n/a` when the case declares no check of the kind;
- is an `error` when a declared check is invalid at run time (`case_checks.revalidated`:
  a Plan built in code may hold one no validator saw) -- never a verdict on a bad expectation;
- else passes when every check of the kind holds on the answer of its turn, and fails naming
  each failing check with its turn. A turn the trial never reached, whose answer the harness
  wrote (the approval pause) or that the agent left empty fails: the agent gave no answer of its
  own there, and a check never passes on nothing.

The same check functions are what the validator holds each case's reference to (`holds`), so
the gold answer and the agent's are judged by one implementation.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from functools import wraps
from typing import TYPE_CHECKING, Any

from ..core.answer_numbers import Number
from ..core.case_checks import describe, kind_of, positioned, revalidated, turn_of
from .base import Score, registered, scorer

if TYPE_CHECKING:
    from ..core.calls import Turn
    from ..core.evalset import Case
    from ..core.plan import Plan
    from ..core.trial import TrialView

Holds = Callable[[Any, str], "str | None"]
"""(check, answer) -> why the answer fails the check, or None when it holds."""

_HOLDS: dict[str, Holds] = {}
_FENCED = re.compile(r"```(?:json)?[ \t]*\n(.*)\n[ \t]*```", re.DOTALL | re.IGNORECASE)


def response_scorer(
    *, kind: str, passes_when: str, reads_answers: bool = False
) -> Callable[[Holds], Holds]:
    """Register the scorer of response checks of `kind`, applying `holds` to each;
    `passes_when` says when one check holds (the docs' line says the rest alike)."""

    def register(holds: Holds) -> Holds:
        @wraps(holds)  # the scorer's module is the check's: the scorer-set digest reads it
        def score(trial: TrialView, plan: Plan) -> Score:
            return score_checks(trial, kind, holds)

        line = (
            f"every `{kind}` check the case declares: {passes_when}; a turn without an answer "
            "of the agent's own fails; an invalid check is an error; n/a when none is declared"
        )
        scorer(
            name=kind,
            needs=("turns",),
            passes_when=line,
            applies=checks_of(kind),
            reads_answers=reads_answers,
        )(score)
        _HOLDS[kind] = holds
        return holds

    return register


def checks_of(kind: str) -> Callable[[Case, Any], str | None]:
    """The `applies` of the scorer of `kind`: why it does not apply to a case (it declares no
    check of the kind), or None."""

    def applies(case: Case, plan: Any) -> str | None:
        return None if positioned(case, kind) else f"no {kind} check declared"

    return applies


def holds(check: Any, answer: str) -> str | None:
    """Why `answer` fails `check` under its kind's scorer, or None. A kind with no
    deterministic scorer (a judged one) is not checked here: KeyError."""
    registered()  # loads every scorer module, so every kind has registered its check
    return _HOLDS[str(kind_of(check))](check, answer)


def answer_at(trial: TrialView, turn_index: int) -> tuple[Turn | None, str]:
    """(the played turn whose answer the agent gave, or None; why there is none): a turn the
    trial never reached, whose response the harness wrote at an approval pause, or empty."""
    turn = next((t for t in trial.turns if t.index == turn_index), None)
    if turn is None:
        return None, f"the trial never reached turn {turn_index}"
    if turn.response_synthesized:
        return None, "the harness wrote the response at the approval pause; the agent gave none"
    if not turn.answer.strip():
        return None, "the agent's answer is empty"
    return turn, ""


def score_checks(trial: TrialView, kind: str, check_holds: Holds) -> Score:
    """Every check of `kind` the trial's case declares, against the answers of its turns."""
    case: Case = trial.case
    if none := checks_of(kind)(case, None):
        return Score(outcome="n/a", detail=none)
    checks = positioned(case, kind)
    invalid, failing = [], []
    for position, declared in checks:
        check = revalidated(case, declared)
        if isinstance(check, str):
            invalid.append(f"response[{position}] {describe(declared)}: {check}")
            continue
        index = turn_of(case, check)
        turn, why = answer_at(trial, index)
        if turn is not None:
            why = check_holds(check, turn.answer) or ""
        if why:
            failing.append(f"turn {index}: response[{position}] {check.show()}: {why}")
    if invalid:
        return Score.error("invalid check(s), no verdict: " + "; ".join(invalid))
    return Score.of(not failing, "; ".join(failing))


# -- the JSON of an answer, for the JSON kinds ----------------------------------------------------


def json_text(answer: str) -> str:
    """The JSON text of an answer: the stripped answer, or the inside of the one fenced block
    ("```json" or "```" on its own line, the JSON, "```") the whole answer is."""
    stripped = answer.strip()
    fenced = _FENCED.fullmatch(stripped)
    return fenced.group(1).strip() if fenced else stripped


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


class NotJson(ValueError):
    """The answer is not JSON; the message says where."""


def parse_json(answer: str, *, exact: bool = False) -> Any:
    """The answer's JSON value (`json_text`), strictly: NaN and Infinity are not JSON.
    `exact`: every number is a `response_checks.Number`, as written -- no float that overflows
    to inf (1e400) or rounds, no int past Python's digit limit for text."""
    text = json_text(answer)
    numbers: dict[str, Any] = {"parse_int": Number, "parse_float": Number} if exact else {}
    try:
        return json.loads(text, parse_constant=_no_constant, **numbers)
    except json.JSONDecodeError as exc:
        raise NotJson(f"not JSON: line {exc.lineno}, column {exc.colno}: {exc.msg}") from None
    except (ValueError, RecursionError) as exc:
        raise NotJson(f"not JSON: {exc}") from None


def is_number(value: Any) -> bool:
    """A JSON number: an int or a finite float, never a boolean."""
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, float) and math.isfinite(value))


def shown(value: Any, limit: int = 60) -> str:
    text = json.dumps(value, sort_keys=True, default=str)
    return text if len(text) <= limit else text[:limit] + "…"
