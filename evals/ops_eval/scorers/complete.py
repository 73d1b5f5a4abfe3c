"""A complete conversation: one non-empty terminal response per expected turn (a turn that
ended at an approval pause counts, with its synthesised 'waiting for approval' response)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .base import Score, scorer

if TYPE_CHECKING:
    from ..calls import TrialView
    from ..plan import Plan


@scorer(
    name="complete",
    needs=("turns",),
    passes_when="one non-empty terminal response per turn (the approval pause counts)",
)
def complete(trial: TrialView, plan: Plan) -> Score:
    responses = [t.response for t in trial.turns]
    expected = len(trial.case.turns)
    if len(responses) != expected:
        return Score.of(False, f"{len(responses)} responses for {expected} turns")
    empty = [i for i, r in enumerate(responses, 1) if not r.strip()]
    if empty:
        return Score.of(False, f"no response in turn(s) {', '.join(map(str, empty))}")
    return Score.of(True)
