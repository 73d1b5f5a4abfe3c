"""A trial's verdict as the gate reads it, from the scores the run recorded, and the tallies of
a run, a category or a case built from it.

A trial passes when every gating scorer (`evals/gate.yaml`) that counts passed it: a `fail` or
an `error` score (a scorer that applies but reached no verdict) fails it, fail-closed; `n/a` and
`skipped` scores do not count. An error trial has no verdict, and neither has a trial where no
gating scorer counted (every one n/a or skipped): both are left out of a comparison's rates and
counted beside them. The candidate's own suite threshold counts
its error trials as not passing, so an error never helps a run through; a run with no trial
that has a verdict is not gated at all (`judgeable`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ...base.exits import EXIT_BAD_INPUT, EXIT_INFRA, OpsEvalError
from ...base.inputs import bad_input
from ...base.stats import wilson
from ...results.records import RunRecord, TrialRecord


@dataclass(frozen=True)
class Tally:
    """k passing of n trials with a verdict; `errors` and `silent` (every gating scorer n/a or
    skipped) trials have none."""

    k: int = 0
    n: int = 0
    errors: int = 0
    silent: int = 0

    @property
    def rate(self) -> float | None:
        return self.k / self.n if self.n else None

    @property
    def interval(self) -> tuple[float, float]:
        return wilson(self.k, self.n)

    @property
    def without_verdict(self) -> int:
        return self.errors + self.silent

    def as_dict(self) -> dict[str, object]:
        low, high = self.interval
        return {
            "k": self.k,
            "n": self.n,
            "rate": self.rate,
            "low": low,
            "high": high,
            "errors": self.errors,
            "without_verdict": self.without_verdict,
        }


def trial_verdict(trial: TrialRecord, scorers: Sequence[str]) -> bool | None:
    """True pass, False fail (a gating score failed or erred), None no verdict (an error
    trial, or no gating scorer counted: every one n/a or skipped)."""
    if trial.status == "error":
        return None
    applied = [trial.scores[s] for s in scorers if s in trial.scores and trial.scores[s].counted]
    if not applied:
        return None
    return all(s.outcome == "pass" for s in applied)


def tally(trials: Iterable[TrialRecord], scorers: Sequence[str]) -> Tally:
    k = n = errors = silent = 0
    for trial in trials:
        verdict = trial_verdict(trial, scorers)
        if trial.status == "error":
            errors += 1
        elif verdict is None:
            silent += 1
        else:
            n += 1
            k += verdict
    return Tally(k, n, errors, silent)


def judgeable(record: RunRecord, scorers: Sequence[str], label: str) -> None:
    """OpsEvalError unless the gate can judge the record: its trials carry the gating scorers
    (exit 2: a record from an older scorer set), and at least one trial has a verdict (exit 3
    when every trial errored -- the model or the machine failed, not the agent; exit 2 when the
    gating scorers applied to no trial)."""
    valid = [t for t in record.trials if t.status != "error"]
    if not valid:
        raise OpsEvalError(
            EXIT_INFRA,
            f"{label} run {record.run_id}: every trial errored ({len(record.trials)}); there is "
            "no verdict to gate on",
        )
    missing = [s for s in scorers if not any(s in t.scores for t in valid)]
    if missing:
        raise bad_input(
            f"{label} run {record.run_id}: no trial carries the gating scorer(s) "
            f"{', '.join(missing)} (a record from an older scorer set)"
        )
    if tally(record.trials, scorers).n == 0:
        raise OpsEvalError(
            EXIT_BAD_INPUT,
            f"{label} run {record.run_id}: no gating scorer applied to any trial (all n/a or "
            "skipped); "
            "there is no verdict to gate on",
        )
