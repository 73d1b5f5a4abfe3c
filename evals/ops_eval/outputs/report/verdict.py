"""What every report of a run leads with, one source for the terminal, Markdown and HTML: the
gate's verdict in one line, why each case below the gate failed, and the scorers folded by
whether they applied -- gating scorers that judged a trial as rates, report-only scorers as the
figures they are (never pass/fail), and the rest as one `n/a` line instead of rows of `0/0`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ...results.records import GroupAggregate, RunRecord, TrialRecord
from ...scorers.base import Score

_WHY_SHOWN = 160  # characters of one failed case's reason in the terminal
_FAILING = ("fail", "error")


@dataclass(frozen=True)
class Reason:
    """Why one case is below the gate: its first trial that did not pass, and the first thing
    that failed it (the trial's error, else the first gating scorer that failed it)."""

    case_id: str
    repeat: int
    why: str

    def line(self, most: int | None = None) -> str:
        why = self.why if most is None or len(self.why) <= most else self.why[:most] + "…"
        return f"{self.case_id} #{self.repeat}: {why}"


def verdict_line(record: RunRecord) -> str:
    """The run's verdict and why, in one line: PASSED / FAILED / INTERRUPTED / NO VERDICT, how
    many cases are below the gate (or without a valid trial), and the gate it applied."""
    gate = f"{record.criteria.match_type}, threshold {record.criteria.threshold} per case"
    n = len(record.cases)
    below = sum(c.gate is False for c in record.cases)
    silent = sum(c.gate is None for c in record.cases)
    if record.interrupted is not None:
        stop = record.interrupted
        return (
            f"INTERRUPTED after {stop.finished} of {stop.planned} trials ({stop.reason}): not a "
            "complete run, so no verdict"
        )
    if record.exit_code == 3 and not below:
        why = "; ".join(record.notes[:1]) or f"{silent} case(s) without a valid trial"
        return f"NO VERDICT: {why}"
    if record.gate_passed:
        return f"PASSED: all {n} case(s) at the gate ({gate})"
    parts = [f"{below} of {n} case(s) below the gate ({gate})"] if below else []
    if silent:
        parts.append(f"{silent} without a valid trial")
    return "FAILED: " + "; ".join(parts)


def reasons(record: RunRecord) -> list[Reason]:
    """One reason per case below the gate, shortest first (the quickest to read and, most
    often, the plainest mistake). A minimal-data record's details and errors are already its
    labels, so nothing here holds a trial's text there either."""
    gating = {n for n, rule in (record.scoring or {}).items() if rule.gate != "report"}
    found = []
    for case in (c for c in record.cases if c.gate is False):
        trials = sorted((t for t in record.trials if t.case_id == case.case_id), key=_repeat)
        failed = next((t for t in trials if t.status != "passed"), None)
        if failed is not None:
            why = _why(failed, gating if record.scoring is not None else None)
            found.append(Reason(case.case_id, failed.repeat, why))
    return sorted(found, key=lambda r: len(r.line(_WHY_SHOWN)))


def _repeat(trial: TrialRecord) -> int:
    return trial.repeat


def _why(trial: TrialRecord, gating: set[str] | None) -> str:
    if trial.status == "error" and trial.error:
        return " ".join(f"error: {trial.error}".split())
    for name, score in trial.scores.items():
        if score.outcome in _FAILING and (gating is None or name in gating):
            return " ".join(f"{name}: {score.detail or score.outcome}".split())
    return "failed"


def why_lines(record: RunRecord, report: str | None, most: int = 20) -> list[str]:
    """`reasons` as terminal lines under a heading, at most `most`, then how many more and
    where they all are (the report path, when the caller wrote one)."""
    found = reasons(record)
    if not found:
        return []
    lines = [f"  {r.line(_WHY_SHOWN)}" for r in found[:most]]
    if len(found) > most:
        where = f"report: {report}" if report else "`ops-eval report` lists them all"
        lines.append(f"  … and {len(found) - most} more ({where})")
    return ["why (shortest first):", *lines]


@dataclass(frozen=True)
class Folded:
    """A run's scorers by what they did: `applied`, the gating scorers that judged, skipped or
    errored on a trial; `reports`, each report-only scorer that applied with its figures as
    text; `unused`, every scorer no trial of the run applied (one line, not rows of 0/0)."""

    applied: list[GroupAggregate]
    reports: list[tuple[str, str]]
    unused: list[str]

    def unused_line(self) -> str | None:
        if not self.unused:
            return None
        names = ", ".join(self.unused)
        return f"n/a: {len(self.unused)} scorer(s) no case of this run declares ({names})"


def folded(record: RunRecord) -> Folded:
    report_only = {n for n, rule in (record.scoring or {}).items() if rule.gate == "report"}
    applied: list[GroupAggregate] = []
    reports: list[tuple[str, str]] = []
    unused: list[str] = []
    for group in record.scorers:
        used = [
            t.scores[group.name]
            for t in record.trials
            if group.name in t.scores and t.scores[group.name].outcome != "n/a"
        ]
        if not used:
            unused.append(group.name)
        elif group.name in report_only:
            reports.append((group.name, _report_text(used)))
        else:
            applied.append(group)
    return Folded(applied, reports, unused)


def _report_text(scores: list[Score]) -> str:
    """A report scorer's figures over the trials it applied to: the mean of each figure it
    keeps (call F1, edit distance), else the mean of its value -- a measure, never a verdict."""
    figures: dict[str, list[float]] = {}
    for score in scores:
        for key, value in (score.figures or {}).items():
            figures.setdefault(key, []).append(value)
    if figures:
        means = ", ".join(
            f"{key.replace('_', ' ')} {sum(v) / len(v):.2f}" for key, v in figures.items()
        )
        return f"mean {means} over {len(scores)} trial(s)"
    values = [s.value for s in scores if s.value is not None]
    if values:
        return f"mean {sum(values) / len(values):.2f} over {len(values)} trial(s)"
    return f"{len(scores)} trial(s)"


def applied_scores(
    trial: TrialRecord, record: RunRecord
) -> tuple[list[tuple[str, Score, Literal["gate", "report"]]], list[str]]:
    """A trial's scores that applied, as (name, score, kind) -- kind `report` for a report-only
    scorer, else `gate` -- and the names of those that did not (folded into one line)."""
    report_only = {n for n, rule in (record.scoring or {}).items() if rule.gate == "report"}
    shown: list[tuple[str, Score, Literal["gate", "report"]]] = []
    folded_away = []
    for name, score in trial.scores.items():
        if score.outcome == "n/a":
            folded_away.append(name)
        else:
            shown.append((name, score, "report" if name in report_only else "gate"))
    return shown, folded_away
