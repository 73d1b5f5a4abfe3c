"""A trial's verdict as the gate reads it, from the scores the run recorded.

A trial passes when no gating scorer (`evals/gate.yaml`) failed it. An error trial has no
verdict and is left out of every rate, as in the run's own aggregates; so is a trial where no
gating scorer applied (every one n/a), which the gate counts and shows rather than call a pass.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..inputs import bad_input
from ..records import RunRecord, TrialRecord


@dataclass(frozen=True)
class Tally:
    """k passing of n trials with a verdict; `silent`: trials without one (errors, all n/a)."""

    k: int = 0
    n: int = 0
    silent: int = 0

    @property
    def rate(self) -> float | None:
        return self.k / self.n if self.n else None


def trial_verdict(trial: TrialRecord, scorers: Sequence[str]) -> bool | None:
    """True pass, False fail, None no verdict (error, or no gating scorer applied)."""
    if trial.status == "error":
        return None
    applied = [
        trial.scores[s] for s in scorers if s in trial.scores and trial.scores[s].outcome != "n/a"
    ]
    if not applied:
        return None
    return all(s.outcome == "pass" for s in applied)


def missing_scorers(record: RunRecord, scorers: Sequence[str]) -> list[str]:
    """Gating scorers that no valid trial of the record carries: the record predates them."""
    valid = [t for t in record.trials if t.status != "error"]
    return [s for s in scorers if valid and not any(s in t.scores for t in valid)]


def check_scorers(record: RunRecord, scorers: Sequence[str], label: str) -> None:
    """OpsEvalError (exit 2) when the record cannot be judged by these scorers."""
    missing = missing_scorers(record, scorers)
    if missing:
        raise bad_input(
            f"{label} run {record.run_id}: no trial carries the gating scorer(s) "
            f"{', '.join(missing)} (a record from an older scorer set)"
        )


def tally(trials: Iterable[TrialRecord], scorers: Sequence[str]) -> Tally:
    k = n = silent = 0
    for trial in trials:
        verdict = trial_verdict(trial, scorers)
        if verdict is None:
            silent += 1
        else:
            n += 1
            k += verdict
    return Tally(k, n, silent)
