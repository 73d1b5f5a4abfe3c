"""One calibration from the command's flags to the appended report (`ops-eval calibrate`).

Everything that can be checked without the judge is checked first, so a bad input costs no
judge call and leaves nothing behind: the flags (they may only raise the target), the set
(duplicates and contradictions refused), a set whose labels are all one class (it certifies
nothing), the project's own calibration set, the report log's chain, the judge budget and the
judge's configuration.

The judge is opened without its verdict cache: every item is asked now, because a cached
verdict -- possibly written by anyone -- is not a measurement of the judge.

Only the project's calibration set (`evals/calibration/set.yaml`, as it is now) certifies a
judge. A report made on another set (`--set`) is appended and kept, and says "this set is not
the project's calibration set: the report is kept, it does not certify"; the gate never counts
it (`reports.standing`).

Exit codes (`Calibrated.exit_code`, and OpsEvalError): 0 the target is met on the project's
calibration set: the report certifies the judge; 1 it does not -- the target (as the flags
raised it) is missed, with each reason, or the set is not the project's (the report is appended
either way, and a report that misses only a target the flags raised, on the project's set,
still counts for the gate, which judges by the project's target; the output says so); 2 bad
input or configuration -- no judge configured included, since calibrating no judge is a
mistake, not a result -- and nothing is appended; 3 infrastructure, nothing measured, NOTHING
appended, and the judge's standing stays what its last report says: the judge could not be
started; or a call failed (`JudgeUnreachable`) or the judge budget refused one
(`budget_blocked`: the spend policy stopped it) -- at the first such item the command stops
and names it, because a network failure or a spend limit is no evidence about the judge's
judgement; or the judge gave no valid verdict on any item (most likely a judge or schema mode
misconfigured, not a measurement). An invalid reply on some items only is those items' error:
it counts against the judge as a disagreement.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from ...base.exits import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_INFRA, EXIT_OK, OpsEvalError, one_line
from .items import CalibrationSet
from .reports import CalibrationReport

if TYPE_CHECKING:
    from ..budget import Budget
    from .target import Target


@dataclass(frozen=True)
class Calibrated:
    """An appended report, and what the gate makes of it."""

    report: CalibrationReport
    log_path: Path
    line: int
    counts: bool
    """Whether the gate counts the report (on the project's set only)."""
    gate: str
    """What the gate makes of it, in words."""
    trust: str

    @property
    def exit_code(self) -> int:
        return EXIT_OK if self.report.meets_target and self.counts else EXIT_FAILED


def gate_says(report: CalibrationReport, project: CalibrationSet) -> tuple[bool, str]:
    """(whether the gate counts `report`, what it makes of it): a report on a set other than the
    project's is kept but does not certify; on the project's set, the project's target decides
    (`reports.standing`), whatever target the flags raised."""
    from .metrics import shortfalls
    from .reports import not_counted
    from .target import TARGET

    elsewhere = not_counted(report, project)
    judge = f"judge {report.judge_pin} with prompt {report.prompt_version}"
    if elsewhere is not None:
        return False, (
            "this set is not the project's calibration set: the report is kept, it does not "
            f"certify ({elsewhere})"
        )
    if shortfalls(report.metrics, TARGET, report.certifies_why):
        return True, f"{judge} is uncalibrated from this report on: the project's target is missed"
    if report.meets_target:
        return True, f"this report certifies {judge}: the project's target is met"
    return True, (
        f"this report certifies {judge}: it missed only the target the flags raised; the gate "
        f"judges by the project's target (agreement >= {TARGET.agreement:.2f}, kappa >= "
        f"{TARGET.kappa:.2f}), which it meets"
    )


def calibrate_judge(
    set_path: Path | None,
    min_agreement: float | None,
    min_kappa: float | None,
    err: TextIO,
) -> Calibrated:
    """Check, measure the configured judge on the set (progress on `err`), append the report;
    OpsEvalError (exit 2 or 3) when nothing was measured and nothing appended."""
    from ..run import gate_budget
    from .items import default_set_path, load_set
    from .reports import append_report, project_set, read_reports, report_log
    from .target import TARGET

    target = TARGET.raised(min_agreement, min_kappa)
    cset = load_set(set_path or default_set_path())
    if cset.one_class is not None:
        raise OpsEvalError(
            EXIT_BAD_INPUT,
            f"{cset.path}: every one of its {len(cset.items)} items is labelled "
            f"{cset.one_class}: a set of one class certifies nothing (a judge that always says "
            f"{cset.one_class} would agree with all of it), so no judge was asked",
        )
    project = project_set()  # what the report is compared with; unreadable: exit 2
    log_path = report_log().path
    read_reports(log_path)  # a log that cannot be trusted is refused before any judge call
    budget = gate_budget()
    if budget.problem is not None:
        raise OpsEvalError(
            EXIT_BAD_INPUT, f"no judge budget ({budget.problem}): no judge call can be made"
        )
    report = _measured(cset, target, budget, err)
    if report.metrics.errors == report.metrics.items:
        first = next(o.error for o in report.outcomes if o.error)
        raise OpsEvalError(
            EXIT_INFRA,
            one_line(
                f"the judge gave no valid verdict on any of the {report.metrics.items} "
                f"items (first: {first}); nothing was measured (a judge, or its schema mode, "
                "misconfigured?), so no report was appended and the judge's standing is "
                "unchanged"
            ),
        )
    counts, gate = gate_says(report, project)
    line = append_report(report, log_path)
    return Calibrated(report, log_path, line, counts, gate, report_log(log_path).trust())


def _measured(
    cset: CalibrationSet, target: Target, budget: Budget, err: TextIO
) -> CalibrationReport:
    """Every item asked now (no verdict cache), a progress line each; OpsEvalError (exit 2)
    for no judge configured, (exit 3) for one that cannot be started or a stopped calibration."""
    from ...base.progress import Progress
    from ...base.settings import current
    from ...models.choice import ModelUnavailable
    from ..setup import NoJudge, open_judge
    from .reports import ItemOutcome
    from .run import CalibrationStopped, calibrate

    def say(line: str) -> None:
        print(line, file=err, flush=True)

    try:
        # No verdict cache: a calibration measures the judge now.
        with open_judge(say, current().runs_dir, budget, cache=False) as judge:
            if isinstance(judge, NoJudge):
                raise OpsEvalError(
                    EXIT_BAD_INPUT,
                    f"{judge.reason}: there is no judge to calibrate (set OPS_JUDGE_MODEL, and "
                    "OPS_JUDGE_BASE_URL for a server of your own)",
                )
            say(
                f"calibrating judge {judge.pin} on {cset.path} ({len(cset.items)} items, "
                f"{cset.passes} pass, {cset.fails} fail), every item asked now (no verdict cache)"
            )
            progress = Progress(len(cset.items), "item", err)

            def done(outcome: ItemOutcome) -> None:
                how = outcome.verdict or f"error: {outcome.error}"
                progress.update(one_line(f"{outcome.id} {how}")[:200], failed=bool(outcome.error))

            try:
                return calibrate(judge, cset, target, on_item=done)
            finally:
                progress.close()
    except ModelUnavailable as exc:
        raise OpsEvalError(
            EXIT_INFRA, f"the judge could not be started: {exc}; nothing was measured"
        ) from None
    except CalibrationStopped as stop:
        why = (
            "the judge budget refused the call (budget_blocked: the spend policy stopped it)"
            if stop.kind == "budget_blocked"
            else "the judge could not be reached (unreachable)"
        )
        raise OpsEvalError(
            EXIT_INFRA,
            one_line(
                f"calibration stopped at item {stop.item} ({stop.position} of "
                f"{stop.total}): {why}: {stop.cause}; infrastructure is not evidence about the "
                "judge, so nothing was appended and the judge's standing is unchanged"
            ),
        ) from None
