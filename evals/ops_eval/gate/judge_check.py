"""Whether the judge behind a gating scorer may gate: the gate fails a run whose gating verdicts
came from a judge nobody calibrated, or one calibrated below target.

For each gating scorer that uses a judge (declared in the registry: `uses_judge`), the
candidate's scores say what happened:

- a pass, fail or error score: the judge ran (or was asked). The record's `judge` names it --
  its pin and the version of its grading prompt -- and `calibration.standing` must find its
  latest calibration report meeting the target. Otherwise the gate FAILS, naming the judge,
  the prompt version and why (no report; below target, with its figures);
- a skipped score: no judge was configured, or its credential is missing. That is a declared
  WARNING naming the scorer, how many trials and the reason: never a silent pass, and never a
  failure on its own (the run's other gating scorers still decide those trials).

Separately, any judge call the budget refused (`budget_blocked` in the record's `judge`) fails
the gate: the spend policy is the gate's, and a run that hit it is incomplete.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from ..records import RunRecord
from .config import GateConfig

JUDGED = frozenset({"pass", "fail", "error"})
"""Outcomes that mean the judge was asked."""
GRADE_PROMPT = "grade"
"""The prompt kind a scorer's judge grades with (`judge.prompts.GRADING`)."""


@dataclass
class JudgeCheck:
    """What the gate found of the candidate's judge: failures fail the gate, warnings are
    declared, notes say which judge was found calibrated."""

    failures: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, list[str]]:
        return {"failures": self.failures, "warnings": self.warnings, "notes": self.notes}


def judge_scorers(config: GateConfig) -> list[str]:
    """The gating scorers that use a judge (as the registry declares them)."""
    from ..scorers import registered

    known = registered()
    return [name for name in config.gating_scorers if name in known and known[name].uses_judge]


def _reasons(details: list[str]) -> str:
    counted = Counter(d.strip() or "no reason given" for d in details)
    if len(counted) == 1:
        return next(iter(counted))
    return "; ".join(f"{reason} ({n} trials)" for reason, n in counted.most_common())


def check_judges(
    record: RunRecord, config: GateConfig, reports_path: Path | None = None
) -> JudgeCheck:
    """The judge check of `record` under `config`. LedgerError (exit 2) when the calibration
    report log cannot be trusted: the gate never decides on a record it cannot read."""
    from ..calibration.reports import standing

    check = JudgeCheck()
    use = record.judge
    for name in judge_scorers(config):
        scores = [t.scores[name] for t in record.trials if name in t.scores]
        skipped = [s.detail for s in scores if s.outcome == "skipped"]
        judged = [s for s in scores if s.outcome in JUDGED]
        if skipped:
            check.warnings.append(
                f"{name}: skipped in {len(skipped)} of {len(scores)} trials, so no judge "
                f"decided them: {_reasons(skipped)}"
            )
        if not judged:
            continue
        if use is None:
            check.failures.append(
                f"{name}: {len(judged)} trials carry a judge's score, but the run record names "
                "no judge, so its calibration cannot be checked"
            )
            continue
        version = use.prompt_versions.get(GRADE_PROMPT)
        if not version:
            check.failures.append(
                f"{name}: the run record's judge {use.pin} names no {GRADE_PROMPT!r} prompt "
                "version, so its calibration cannot be checked"
            )
            continue
        ok, why = standing(use.pin, version, reports_path)
        if ok:
            check.notes.append(f"{name}: judge {use.pin}, prompt {version}: {why}")
        else:
            check.failures.append(
                f"{name}: judge {use.pin} (prompt {version}) is uncalibrated, so it cannot gate: "
                f"{why}"
            )
    if use is not None and use.budget_blocked:
        budget = (
            f"{use.budget_tokens} tokens, {use.budget_source}"
            if use.budget_tokens is not None
            else f"unreadable: {use.budget_problem}"
        )
        check.failures.append(
            f"budget_blocked: {use.budget_blocked} judge call(s) were not made because they "
            f"could exceed the judge budget ({budget}); their scores are errors"
        )
    return check
