"""Calibration reports: an append-only, hash-chained JSONL record of every calibration, tied to
the judge's pin and prompt version -- what the gate reads to decide whether a judge may gate.

Why a chain (the gate ledger's, `deciding.ledger`, with this file's own line model): a report is
the evidence that lets a judge's verdicts fail or pass a run. A line quietly edited -- a missed
target turned into a met one -- would certify a judge nobody measured; reading verifies every
line and refuses the file naming the first line that breaks the chain. A report's figures must
also follow from its own per-item outcomes, and `meets_target` from its figures and target, so a
line cannot say more than its items show.

Only the project's calibration set certifies (`standing`). Every report is kept, whatever set it
ran on, but only one made on the set the project ships (`evals/calibration/set.yaml`) as it is
NOW counts: the same sha256 as the file today, and per-item outcomes with the set's ids and
labels, in its order. A set of someone's own -- two answers copied twenty times, a four-item
quick look -- can neither certify a judge nor revoke a certification; and when the shipped set
changes, every earlier report stops counting and the judge must be calibrated on the current
one. Nor does a report with a verdict from the verdict cache count: a calibration measures the
judge, and `ops-eval calibrate` never reads the cache.

Among the reports that count, the LATEST for a pin and prompt version decides, judged against
the project's target `TARGET` as it is now -- not the target the report was run with: a report
that missed a target raised by `--min-*` flags but meets the project's still certifies (the
flags are a stricter look for whoever runs the command, not the project's bar), and one that
met an easier target of the past does not. A judge re-measured and found wanting is
uncalibrated from then on, whatever an earlier report said. Default path
`evals/calibration/reports.jsonl` (`settings.calibration_reports`; OPS_CALIBRATION_REPORTS moves
it).
"""

from __future__ import annotations

from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Annotated, Literal

from pydantic import ConfigDict, Field, TypeAdapter, model_validator

from ...base.strict import Strict
from ...deciding.ledger.chain import Ledger
from ..client import JudgeUse
from .items import CalibrationSet, Label, default_set_path, load_set
from .metrics import Graded, Metrics, measure, shortfalls
from .target import TARGET, Target

WHAT = "calibration report log"
Sha256 = Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class ItemOutcome(Strict):
    """What the judge said of one item: a verdict, or the error that left it without one."""

    model_config = ConfigDict(frozen=True)

    id: str
    label: Label
    """The item's label (given by hand; see the set's header)."""
    length: int = Field(ge=0)
    """The answer's length in characters."""
    verdict: Literal["pass", "fail"] | None = None
    rationale: str | None = None
    error: str | None = None
    cached: bool = False
    """Whether the verdict came from the verdict cache. `ops-eval calibrate` never reads the
    cache, so it is always false in the reports it writes; a report with a cached verdict is
    kept but does not count (`standing`)."""

    @model_validator(mode="after")
    def _verdict_or_error(self) -> ItemOutcome:
        if (self.verdict is None) == (self.error is None):
            raise ValueError("an item has a verdict or an error, not both and not neither")
        return self

    @property
    def graded(self) -> Graded:
        judged = None if self.verdict is None else self.verdict == "pass"
        return Graded(labelled_pass=self.label == "pass", judge_pass=judged, length=self.length)

    @property
    def agrees(self) -> bool:
        return self.verdict == self.label


class TargetUsed(Strict):
    model_config = ConfigDict(frozen=True)

    agreement: float = Field(ge=0, le=1)
    kappa: float = Field(ge=-1, le=1)

    @property
    def target(self) -> Target:
        return Target(agreement=self.agreement, kappa=self.kappa)


class CalibrationReport(Strict):
    """One calibration of one judge (pin) with one prompt version over one set."""

    model_config = ConfigDict(frozen=True)

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

    def figures(self) -> str:
        """One line: the figures that decide, and when."""
        m = self.metrics
        kappa = "undefined" if m.kappa is None else f"{m.kappa:.2f}"
        return (
            f"agreement {m.agreement.k}/{m.agreement.n} = {m.agreement.rate or 0:.2f}, kappa "
            f"{kappa}, {m.errors} error(s), at {self.at}"
        )


@cache
def _adapter() -> TypeAdapter[CalibrationReport]:
    return TypeAdapter(CalibrationReport)


def report_log(path: Path | None = None) -> Ledger:
    """The report log at `path` (default: the settings' `calibration_reports`)."""
    from ...base.settings import current

    return Ledger(path or current().calibration_reports, adapter=_adapter(), what=WHAT, rules=None)


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


def not_counted(report: CalibrationReport, cset: CalibrationSet) -> str | None:
    """Why `report` does not count towards a judge's standing, given `cset`, the project's
    calibration set as it is now; None when it counts. It counts when it ran on that very set
    (its sha256, and its outcomes' ids and labels in the set's order) and measured the judge
    (no verdict from the cache)."""
    if report.set_sha256 != cset.sha256:
        return (
            f"made on {report.set_path} (sha256 {report.set_sha256[:12]}), not on the "
            f"project's calibration set as it is now (sha256 {cset.sha256[:12]})"
        )
    made = [(o.id, o.label) for o in report.outcomes]
    if made != [(i.id, i.label) for i in cset.items]:
        return "its items' ids or labels are not those of the project's calibration set"
    cached = sum(o.cached for o in report.outcomes)
    if cached or report.judge.cache_hits:
        return f"{max(cached, report.judge.cache_hits)} verdict(s) came from the cache"
    return None


def project_set(set_path: Path | None = None) -> CalibrationSet:
    """The project's calibration set as it is now (`set_path`, default the shipped
    `evals/calibration/set.yaml`); OpsEvalError (exit 2) when it cannot be read -- nothing can
    be certified against a set nobody can read."""
    return load_set(set_path or default_set_path())


def standing(
    pin: str,
    prompt_version: str,
    reports_path: Path | None = None,
    set_path: Path | None = None,
) -> tuple[bool, str]:
    """(whether the judge `pin` with prompt `prompt_version` is calibrated, why).

    Only reports on the project's calibration set as it is now count (`not_counted`; `set_path`
    replaces the shipped set, for tests), and the latest of them decides, judged against the
    project's target `TARGET`: none is uncalibrated (saying how many reports on other sets, or
    an earlier version of the set, were left out); one whose figures fall short of `TARGET` is
    below target. OpsEvalError (exit 2) when the log or the set cannot be read."""
    log = report_log(reports_path)
    cset = project_set(set_path)
    mine = [
        r
        for r in read_reports(log.path)
        if r.judge_pin == pin and r.prompt_version == prompt_version
    ]
    counted = [r for r in mine if not_counted(r, cset) is None]
    judge = f"judge {pin} with prompt {prompt_version}"
    if not counted:
        if not mine:
            return False, f"no calibration report for {judge} in {log.path} (`ops-eval calibrate`)"
        last = not_counted(mine[-1], cset)
        return False, (
            f"not calibrated on the project's calibration set as it is now ({cset.path}, sha256 "
            f"{cset.sha256[:12]}): {len(mine)} report(s) for {judge} in {log.path}, none of "
            f"which counts (the latest: {last}); calibrate it on the current set "
            "(`ops-eval calibrate`)"
        )
    found = counted[-1]
    later = len(mine) - 1 - max(i for i, r in enumerate(mine) if r is found)
    aside = (
        f" ({later} later report(s) do not count; the latest: {not_counted(mine[-1], cset)})"
        if later
        else ""
    )
    figures = f"its latest calibration on the project's set: {found.figures()}{aside}"
    project = f"agreement >= {TARGET.agreement:.2f}, kappa >= {TARGET.kappa:.2f}"
    now = shortfalls(found.metrics, TARGET, found.certifies_why)
    if now:
        return False, f"below target: {figures}; the project's target ({project}) is missed: " + (
            "; ".join(now)
        )
    return True, (
        f"calibrated: {figures}; meets the project's target ({project}) (set sha256 "
        f"{found.set_sha256[:12]})"
    )
