"""Whether the judge behind a gating scorer may gate: the gate fails a run whose gating verdicts
came from a judge nobody calibrated, or one calibrated below target.

For each gating scorer that uses a judge (declared in the registry: `uses_judge`), the
candidate's scores say what happened:

- a pass, fail or error score: the run was scored with that judge. The record's `judge` names
  it -- its pin and the version of its grading prompt -- and `calibration.standing` must find
  its latest report on the project's calibration set (as that set is now) meeting the project's
  target. Otherwise the gate FAILS, naming the judge, the prompt version and why (no report; no
  report on the current set -- reports on other sets, or on an earlier version of it, never
  count; below target, with its figures);
- the same, fail-closed, when the judge gave no verdict at all in the run (the record's `judge`
  made no call and had no cache hit: every such score was decided without it -- an answer the
  agent never gave is a fail, a call the budget refused is an error). Those trials fail on
  their own score whatever the judge's standing, and the run was still set up to gate on that
  judge, so it must still be calibrated; but the message says that no judge verdict was used
  instead of implying that the judge decided anything. A `pass` can only come from a verdict, so
  a pass in such a record is a contradiction, and FAILS the gate on its own;
- a skipped score: no judge was configured, or its credential is missing. That is a declared
  WARNING naming the scorer, how many trials and the reason: never a silent pass, and never a
  failure on its own (the run's other gating scorers still decide those trials).

Separately, any judge call the budget refused (`budget_blocked` in the record's `judge`) fails
the gate: the spend policy is the gate's, and a run that hit it is incomplete.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

from ..deciding.gate.render import JudgeCheck
from ..results.records import RunRecord
from ..validation.gate_config import GateConfig

if TYPE_CHECKING:
    from ..core.judge_port import JudgeUse
    from ..scorers.base import Score

JUDGED = frozenset({"pass", "fail", "error"})
"""Outcomes of a judge scorer that ran with a judge: a pass needs its verdict; a fail or an
error may have been decided without one (no answer to grade, a call never made)."""
GRADE_PROMPT = "grade"
"""The prompt kind a scorer's judge grades with (`prompts.GRADING`)."""


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


def _unused(name: str, judged: list[Score], use: JudgeUse, check: JudgeCheck) -> str:
    """When the run's judge gave no verdict at all (no call, no cache hit): the words that say
    so, and a failure for any pass (only a verdict makes one). Else ''."""
    if use.calls or use.cache_hits:
        return ""
    outcomes = Counter(s.outcome for s in judged)
    if outcomes["pass"]:
        check.failures.append(
            f"{name}: {outcomes['pass']} trial(s) carry a judge's pass, but the run record's "
            f"judge {use.pin} made no call and had no cache hit: the record contradicts itself, "
            "so no pass of it can be trusted"
        )
    shown = ", ".join(f"{n} {outcome}" for outcome, n in sorted(outcomes.items()))
    return (
        f"no judge verdict was used: judge {use.pin} made no call and had no cache hit in this "
        f"run, so none of its {len(judged)} score(s) ({shown}) rests on a verdict (an answer the "
        "agent never gave fails; a call never made is an error); "
    )


def _calibrated(
    check: JudgeCheck,
    name: str,
    judged: list[Score],
    use: JudgeUse,
    version: str,
    reports_path: Path | None,
) -> None:
    """The scorer `name`'s judge checked against its calibration: a note when it stands, a
    failure saying why when it does not."""
    from .calibration.reports import standing

    ok, why = standing(use.pin, version, reports_path)
    unused = _unused(name, judged, use, check)
    if ok:
        check.notes.append(f"{name}: {unused}judge {use.pin}, prompt {version}: {why}")
    elif unused:
        check.failures.append(
            f"{name}: {unused}the run was set up to gate on judge {use.pin} (prompt {version}), "
            f"which is uncalibrated: {why}"
        )
    else:
        check.failures.append(
            f"{name}: judge {use.pin} (prompt {version}) is uncalibrated, so it cannot gate: {why}"
        )


def check_judges(
    record: RunRecord, config: GateConfig, reports_path: Path | None = None
) -> JudgeCheck:
    """The judge check of `record` under `config`. OpsEvalError (exit 2) when the calibration
    report log cannot be trusted, or the project's calibration set cannot be read: the gate
    never decides on evidence it cannot read."""
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
        _calibrated(check, name, judged, use, version, reports_path)
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
