"""One calibration: every item of the set graded by the judge, one at a time, into a report.

One at a time because the judges this runs against are often a single local server (the
embedded llama.cpp one serves one request at a time). Every verdict is asked for now: the judge
a calibration is given has no verdict cache (`ops-eval calibrate` opens it with `cache=False`),
because a cached verdict -- written by any earlier command, by anyone -- is not a measurement.

What the judge does on an item is one of three things:

- a verdict: measured against the item's label;
- an invalid reply (a `JudgeError` that is neither of the two below: a reply that is not a
  valid verdict, no text): that item's error, kept with its message, and counted against the
  judge as a disagreement -- the judge was asked and did not answer properly;
- infrastructure: the call itself failed (`JudgeUnreachable`: refused, timed out, the server
  erred) or the spend policy refused it (`BudgetBlocked`). That is no evidence about the judge's
  judgement, so the calibration STOPS there (`CalibrationStopped`, naming the item): a report
  with holes the network made would be a wrong measurement, and the command appends nothing.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from ..budget import BudgetBlocked
from ..client import Judge, JudgeUse
from ..prompts import GRADING
from ..verdicts import JudgeError, JudgeUnreachable, Verdict
from .items import MIN_ITEMS, CalibrationItem, CalibrationSet
from .metrics import measure, shortfalls
from .reports import CalibrationReport, ItemOutcome, TargetUsed
from .target import Target


class CalibrationStopped(Exception):
    """The calibration stopped at an item because of infrastructure, not the judge's judgement:
    `kind` is `unreachable` (the call failed) or `budget_blocked` (the spend policy refused
    it); `item` names it, `position` is its 1-based place among `total`."""

    def __init__(self, kind: str, item: str, position: int, total: int, cause: JudgeError):
        self.kind = kind
        self.item = item
        self.position = position
        self.total = total
        self.cause = cause
        super().__init__(f"{kind} at item {item} ({position} of {total}): {cause}")


def grade_item(judge: Judge, item: CalibrationItem) -> ItemOutcome:
    """The judge's outcome on one item: a verdict, or the invalid reply's error.
    JudgeUnreachable and BudgetBlocked are raised: they are not outcomes (`calibrate`)."""
    common = {"id": item.id, "label": item.label, "length": item.length}
    try:
        asked = judge.grade(
            rubric=item.rubric,
            question=item.question,
            response=item.answer,
            reference=item.reference,
        )
    except (JudgeUnreachable, BudgetBlocked):
        raise
    except JudgeError as exc:
        return ItemOutcome(**common, error=str(exc) or type(exc).__name__)
    kept = asked.kept
    assert isinstance(kept, Verdict)  # GRADING's reply
    return ItemOutcome(
        **common,
        verdict="pass" if kept.passed else "fail",
        rationale=kept.rationale,
        cached=asked.cached,
    )


def shown_path(path: Path) -> str:
    """`path` relative to the working folder when it is under it (a report read on another
    machine should not name this one's folders), else as given."""
    from opskit.textfiles import shown

    return shown(path)


def certifies_why(cset: CalibrationSet) -> str | None:
    """Why the set cannot certify a judge, or None when it can. (A set of one class is refused
    before this: `session`.)"""
    if len(cset.items) < MIN_ITEMS:
        return (
            f"{len(cset.items)} items, fewer than the {MIN_ITEMS} a calibration needs to certify "
            "a judge"
        )
    return None


def calibrate(
    judge: Judge,
    cset: CalibrationSet,
    target: Target,
    on_item: Callable[[ItemOutcome], None] = lambda _: None,
) -> CalibrationReport:
    """Grade every item of `cset` with `judge` and measure the result against `target`.
    CalibrationStopped at the first item the judge could not be reached for, or the budget
    refused: no report then."""
    started = time.perf_counter()
    outcomes = []
    total = len(cset.items)
    for position, item in enumerate(cset.items, start=1):
        try:
            outcome = grade_item(judge, item)
        except BudgetBlocked as exc:
            raise CalibrationStopped("budget_blocked", item.id, position, total, exc) from None
        except JudgeUnreachable as exc:
            raise CalibrationStopped("unreachable", item.id, position, total, exc) from None
        outcomes.append(outcome)
        on_item(outcome)
    return build_report(
        outcomes,
        cset,
        target,
        judge=judge.use(),
        prompt_version=GRADING.version,
        seconds=time.perf_counter() - started,
    )


def build_report(
    outcomes: list[ItemOutcome],
    cset: CalibrationSet,
    target: Target,
    *,
    judge: JudgeUse,
    prompt_version: str,
    seconds: float,
) -> CalibrationReport:
    """The report of `outcomes` (one per item of `cset`, in its order): the figures, what the
    set can certify, and the target met or missed with each reason."""
    metrics = measure([o.graded for o in outcomes])
    why_not = certifies_why(cset)
    missed = shortfalls(metrics, target, why_not)
    return CalibrationReport(
        judge_pin=judge.pin,
        prompt_version=prompt_version,
        set_path=shown_path(cset.path),
        set_sha256=cset.sha256,
        metrics=metrics,
        target=TargetUsed(agreement=target.agreement, kappa=target.kappa),
        meets_target=not missed,
        missed=missed,
        certifies=why_not is None,
        certifies_why=why_not,
        seconds=round(seconds, 3),
        judge=judge,
        outcomes=outcomes,
    )
