"""Calibration reports: an append-only, hash-chained JSONL record of every calibration, tied to
the judge's pin and prompt version -- what the gate reads to decide whether a judge may gate.

Why a chain (the gate ledger's, `gate/ledger.py`, with this file's own line model): a report is
the evidence that lets a judge's verdicts fail or pass a run. A line quietly edited -- a missed
target turned into a met one -- would certify a judge nobody measured; reading verifies every
line and refuses the file naming the first line that breaks the chain. A report's figures must
also follow from its own per-item outcomes, and `meets_target` from its figures and target, so a
line cannot say more than its items show.

The LATEST report for a pin and prompt version decides (`standing`): a judge re-measured and
found wanting is uncalibrated from then on, whatever an earlier report said. Default path
`evals/calibration/reports.jsonl` (`settings.calibration_reports`; OPS_CALIBRATION_REPORTS moves
it).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, model_validator

from ..gate.ledger import Ledger
from ..judge.client import JudgeUse
from .items import Label
from .metrics import TARGET, Graded, Metrics, Target, measure, shortfalls

WHAT = "calibration report log"
Sha256 = Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class ItemOutcome(BaseModel):
    """What the judge said of one item: a verdict, or the error that left it without one."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    label: Label
    """The person's label."""
    length: int = Field(ge=0)
    """The answer's length in characters."""
    verdict: Literal["pass", "fail"] | None = None
    rationale: str | None = None
    error: str | None = None
    cached: bool = False

    @model_validator(mode="after")
    def _verdict_or_error(self) -> ItemOutcome:
        if (self.verdict is None) == (self.error is None):
            raise ValueError("an item has a verdict or an error, not both and not neither")
        return self

    @property
    def graded(self) -> Graded:
        judged = None if self.verdict is None else self.verdict == "pass"
        return Graded(human_pass=self.label == "pass", judge_pass=judged, length=self.length)

    @property
    def agrees(self) -> bool:
        return self.verdict == self.label


class TargetUsed(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    agreement: float = Field(ge=0, le=1)
    kappa: float = Field(ge=-1, le=1)

    @property
    def target(self) -> Target:
        return Target(agreement=self.agreement, kappa=self.kappa)


class CalibrationReport(BaseModel):
    """One calibration of one judge (pin) with one prompt version over one set."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Literal["calibration"] = "calibration"
    at: str = Field(default_factory=utc_now)
    judge_pin: str = Field(min_length=1)
    prompt_version: str = Field(min_length=1)
    set_path: str
    set_sha256: Sha256
    metrics: Metrics
    target: TargetUsed
    meets_target: bool
    missed: list[str]
    """Why the target was missed, one reason each; empty when it was met."""
    certifies: bool
    """Whether the set can certify a judge at all (enough items); a set that cannot still
    reports its figures, and misses the target."""
    certifies_why: str | None = None
    """Why it cannot, when it cannot."""
    seconds: float = Field(ge=0)
    judge: JudgeUse
    """What the judge did: calls, cache hits, errors, tokens, budget."""
    outcomes: list[ItemOutcome] = Field(min_length=1)

    @model_validator(mode="after")
    def _follows_from_its_items(self) -> CalibrationReport:
        """The figures are those of the outcomes, and the verdict that of the figures and the
        target: a report says nothing its items do not show."""
        if len({o.id for o in self.outcomes}) != len(self.outcomes):
            raise ValueError("an item id occurs twice in outcomes")
        if self.certifies != (self.certifies_why is None):
            raise ValueError("certifies_why says why exactly when the set does not certify")
        if measure([o.graded for o in self.outcomes]) != self.metrics:
            raise ValueError("metrics do not follow from the outcomes")
        if shortfalls(self.metrics, self.target.target, self.certifies_why) != self.missed:
            raise ValueError("missed does not follow from the metrics and the target")
        if self.meets_target != (not self.missed):
            raise ValueError("meets_target is true exactly when nothing was missed")
        return self

    def summary(self) -> str:
        """One line: the figures that decide."""
        m = self.metrics
        kappa = "undefined" if m.kappa is None else f"{m.kappa:.2f}"
        verdict = "met" if self.meets_target else "missed"
        return (
            f"agreement {m.agreement.k}/{m.agreement.n} = {m.agreement.rate or 0:.2f}, kappa "
            f"{kappa}, {m.errors} error(s); target (agreement >= {self.target.agreement:.2f}, "
            f"kappa >= {self.target.kappa:.2f}) {verdict}, at {self.at}"
        )


@cache
def _adapter() -> TypeAdapter[CalibrationReport]:
    return TypeAdapter(CalibrationReport)


def report_log(path: Path | None = None) -> Ledger:
    """The report log at `path` (default: the settings' `calibration_reports`)."""
    from ..settings import current

    return Ledger(path or current().calibration_reports, adapter=_adapter(), what=WHAT)


def read_reports(path: Path | None = None) -> list[CalibrationReport]:
    """Every report, oldest first, the chain verified; LedgerError (exit 2) naming the line that
    breaks it."""
    return report_log(path).entries()


def append_report(report: CalibrationReport, path: Path | None = None) -> int:
    """Append `report`; the number of its line."""
    count: list[int] = []

    def make(entries: list[CalibrationReport]) -> CalibrationReport:
        count.append(len(entries) + 1)
        return report

    report_log(path).append_with(make)
    return count[0]


def latest(
    reports: Sequence[CalibrationReport], pin: str, prompt_version: str
) -> CalibrationReport | None:
    for report in reversed(reports):
        if report.judge_pin == pin and report.prompt_version == prompt_version:
            return report
    return None


def standing(pin: str, prompt_version: str, reports_path: Path | None = None) -> tuple[bool, str]:
    """(whether the judge `pin` with prompt `prompt_version` is calibrated, why). The latest
    report for the two decides: none is uncalibrated; one that missed its target, or whose
    figures fall short of the project's target as it is now (a report made under a lower target
    than today's), is below target. LedgerError (exit 2) when the log cannot be trusted."""
    log = report_log(reports_path)
    found = latest(read_reports(log.path), pin, prompt_version)
    if found is None:
        return False, (
            f"no calibration report for judge {pin} with prompt {prompt_version} in {log.path} "
            "(`ops-eval calibrate`)"
        )
    if not found.meets_target:
        return False, f"below target: its latest calibration {found.summary()}: " + "; ".join(
            found.missed
        )
    now = shortfalls(found.metrics, TARGET, found.certifies_why)
    if now:
        return False, (
            f"below target: its latest calibration {found.summary()}, but falls short of the "
            f"project's target now (agreement >= {TARGET.agreement:.2f}, kappa >= "
            f"{TARGET.kappa:.2f}): " + "; ".join(now)
        )
    return True, f"calibrated: {found.summary()} (set sha256 {found.set_sha256[:12]})"
