"""The scorer registry: every scorer of a trial, declared once (see `base`), one module each.

`score_trial` applies them all to a played trial: an error trial gets no scores, a looping agent
fails every gating scorer (its report scorers are `n/a`: a report never fails), a scorer whose
needs the trial view lacks is `n/a`, and a scorer that crashes makes the trial an error rather
than a verdict.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..exits import describe
from .base import Outcome, Score, Scorer, registered, scorer

if TYPE_CHECKING:
    from ..calls import TrialView
    from ..plan import Plan

__all__ = ["Outcome", "Score", "Scorer", "markdown_table", "registered", "score_trial", "scorer"]


class ScorerCrashed(RuntimeError):
    """A scorer raised instead of returning a Score: the trial has no verdict."""


def score_trial(trial: TrialView, plan: Plan) -> dict[str, Score]:
    """Every registered scorer's verdict on `trial`, by name."""
    if trial.error:
        return {}
    if trial.looped:
        return {
            name: Score(outcome="n/a", detail=trial.looped)
            if entry.gate == "report"
            else Score.of(False, trial.looped)
            for name, entry in registered().items()
        }
    have = trial.provides()
    scores = {}
    for name, entry in registered().items():
        missing = entry.needs - have
        if missing:
            lacking = ", ".join(sorted(missing))
            scores[name] = Score(outcome="n/a", detail=f"needs {lacking}, which this trial lacks")
            continue
        try:
            scores[name] = entry.func(trial, plan)
        except Exception as exc:
            raise ScorerCrashed(f"scorer {name}: {describe(exc)}") from exc
    return scores


def markdown_table() -> str:
    """The README's scorer table, from the declarations."""
    rows = ["| scorer | passes when |", "|---|---|"]
    rows += [f"| `{s.name}` | {s.passes_when} |" for s in registered().values()]
    return "\n".join(rows)
