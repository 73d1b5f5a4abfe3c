"""One calibration: every item of the set graded by the judge, one at a time, into a report.

One at a time because the judges this runs against are often a single local server (the
embedded llama.cpp one serves one request at a time); a remote judge's cache makes a rerun free
anyway. A `JudgeError` -- unreachable, malformed reply, over budget -- is that item's error, not
a verdict: it is kept, with its message, and the metrics count it against the judge.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from ..judge.client import Judge, JudgeUse
from ..judge.prompts import GRADING
from ..judge.verdicts import JudgeError, Verdict
from .items import MIN_ITEMS, CalibrationItem, CalibrationSet
from .metrics import Target, measure, shortfalls
from .reports import CalibrationReport, ItemOutcome, TargetUsed


def grade_item(judge: Judge, item: CalibrationItem) -> ItemOutcome:
    """The judge's outcome on one item."""
    common = {"id": item.id, "label": item.label, "length": item.length}
    try:
        asked = judge.grade(
            rubric=item.rubric,
            question=item.question,
            response=item.answer,
            reference=item.reference,
        )
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
    try:
        return path.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return path.as_posix()


def certifies_why(cset: CalibrationSet) -> str | None:
    """Why the set cannot certify a judge, or None when it can. (A set of one class is refused
    before this: `command`.)"""
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
    """Grade every item of `cset` with `judge` and measure the result against `target`."""
    started = time.perf_counter()
    outcomes = []
    for item in cset.items:
        outcome = grade_item(judge, item)
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
