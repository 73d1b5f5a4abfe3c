"""One pair decided: by the judge, asked twice with the order swapped, or -- with no judge -- by
the two trials' deterministic gating verdicts (the gating scorers less those that use a judge,
chosen by `compare`).

A judge that leans towards a position would otherwise decide comparisons by the order it was
shown them in. Asked both ways, that bias cannot produce a winner: a winner needs order 1 (A
shown first) and order 2 (B shown first) to name the same answer; both saying `tie` is a tie;
anything else is a tie that the report counts as position-inconsistent. A judge error on
either call, or an errored trial on either side, leaves the pair with no verdict -- never a
win, never a tie -- and says why.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from ...base.strict import Strict
from ...deciding.gate.outcomes import trial_verdict
from ..client import Judge
from ..verdicts import JudgeError, Preference
from .pairs import NotComparable, Pair, conversation

Pick = Literal["first", "second", "tie"]
Outcome = Literal["a", "b", "tie", "inconsistent", "no_verdict"]
Why = Literal["trial_error", "judge_error", "not_comparable", "no_gating_verdict"]


class PairResult(Strict):
    """One pair's outcome, with what decided it."""

    case_id: str
    repeat: int
    outcome: Outcome
    order1: Pick | None = None
    """The judge's pick with A shown first."""
    order2: Pick | None = None
    """The judge's pick with B shown first."""
    rationale1: str | None = None
    rationale2: str | None = None
    cache_hits: int = 0
    tokens: int = 0
    a_passed: bool | None = None
    """Without a judge: run A's trial verdict under the gating scorers."""
    b_passed: bool | None = None
    no_verdict: Why | None = None
    reason: str | None = None
    """Why the pair has no verdict."""


def consistent_outcome(order1: Pick, order2: Pick) -> Outcome:
    """A wins only when both orders name A (`first`, then `second`), B likewise; both `tie`
    is a tie; every other combination is position-inconsistent."""
    if order1 == "first" and order2 == "second":
        return "a"
    if order1 == "second" and order2 == "first":
        return "b"
    if order1 == order2 == "tie":
        return "tie"
    return "inconsistent"


def _trial_error(pair: Pair) -> PairResult | None:
    errored = [
        f"run {side}'s trial errored ({trial.error or 'no reason recorded'})"
        for side, trial in (("A", pair.a), ("B", pair.b))
        if trial.status == "error"
    ]
    if not errored:
        return None
    return PairResult(
        case_id=pair.case_id,
        repeat=pair.repeat,
        outcome="no_verdict",
        no_verdict="trial_error",
        reason="; ".join(errored),
    )


def judge_pair(judge: Judge, pair: Pair) -> PairResult:
    """The pair judged in both orders; the second call is not made when the first failed (it
    could only spend budget on a pair that has no verdict already)."""
    errored = _trial_error(pair)
    if errored is not None:
        return errored
    base = {"case_id": pair.case_id, "repeat": pair.repeat}
    try:
        talk = conversation(pair)
    except NotComparable as exc:
        return PairResult(
            **base, outcome="no_verdict", no_verdict="not_comparable", reason=str(exc)
        )
    picks: list[Preference] = []
    hits = tokens = 0
    for order, (first, second) in enumerate(((talk.a, talk.b), (talk.b, talk.a)), start=1):
        try:
            asked = judge.compare(
                questions=talk.questions, first=first, second=second, reference=talk.reference
            )
        except JudgeError as exc:
            shown = "A first" if order == 1 else "B first"
            return PairResult(
                **base,
                outcome="no_verdict",
                order1=picks[0].preferred if picks else None,
                rationale1=picks[0].rationale if picks else None,
                cache_hits=hits,
                tokens=tokens,
                no_verdict="judge_error",
                reason=f"order {order} ({shown}): {exc}",
            )
        assert isinstance(asked.kept, Preference)
        picks.append(asked.kept)
        hits += asked.cached
        tokens += asked.tokens
    one, two = picks
    return PairResult(
        **base,
        outcome=consistent_outcome(one.preferred, two.preferred),
        order1=one.preferred,
        order2=two.preferred,
        rationale1=one.rationale,
        rationale2=two.rationale,
        cache_hits=hits,
        tokens=tokens,
    )


def verdict_pair(pair: Pair, scorers: Sequence[str]) -> PairResult:
    """Without a judge: a passing trial beats a failing one, equal verdicts tie, and a trial
    with no verdict (errored, or no gating scorer applied) leaves the pair with none."""
    errored = _trial_error(pair)
    if errored is not None:
        return errored
    a, b = trial_verdict(pair.a, scorers), trial_verdict(pair.b, scorers)
    base = {"case_id": pair.case_id, "repeat": pair.repeat, "a_passed": a, "b_passed": b}
    if a is None or b is None:
        sides = [side for side, verdict in (("A", a), ("B", b)) if verdict is None]
        return PairResult(
            **base,
            outcome="no_verdict",
            no_verdict="no_gating_verdict",
            reason=f"no gating scorer applied to run {' and '.join(sides)}'s trial",
        )
    outcome: Outcome = "tie" if a == b else ("a" if a else "b")
    return PairResult(**base, outcome=outcome)
