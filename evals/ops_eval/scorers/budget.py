"""Budgets that gate: per turn, at most so many tool calls, model calls, tokens and wall
seconds (`contracts.budget`, per case or per set). ADK reports such figures as information only;
here exceeding one fails the trial with the figure.

A declared figure the play did not record (tokens from a model that reports no usage, model
calls or seconds of a turn built by hand) is not checked: a pass on the figures that were
recorded has a detail that starts with what was not checked; with no declared figure recorded at
all the verdict is n/a, never a silent pass.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.call_policy import FIGURES, figure, over_budget
from .base import Score, scorer

if TYPE_CHECKING:
    from ..core.evalset import Case
    from ..core.plan import Plan
    from ..core.trial import TrialView


def _declared(case: Case, plan: Plan) -> list[str]:
    """The figures the case's contracts budget."""
    limits = plan.contracts(case).budget
    return [n for n in FIGURES if limits is not None and getattr(limits, n) is not None]


NONE_DECLARED = "no budget declared"


def _applies(case: Case, plan: Plan) -> str | None:
    return None if _declared(case, plan) else NONE_DECLARED


@scorer(
    name="budget",
    needs=("turns",),
    passes_when="no turn exceeds a declared budget of tool calls, model calls, tokens or seconds",
    applies=_applies,
)
def budget(trial: TrialView, plan: Plan) -> Score:
    declared = _declared(trial.case, plan)
    if not declared:
        return Score(outcome="n/a", detail=NONE_DECLARED)
    limits = plan.contracts(trial.case).budget
    assert limits is not None
    over: list[str] = []
    checked: set[str] = set()
    for turn in trial.turns:
        for name in declared:
            value = figure(turn, name)
            if value is None:
                continue
            checked.add(name)
            if (problem := over_budget(turn.index, name, value, limits)) is not None:
                over.append(problem)
    missing = [n.replace("_", " ") for n in declared if n not in checked]
    note = f"not checked (not recorded): {', '.join(missing)}" if missing else ""
    if over:
        return Score.of(False, "; ".join(over + ([note] if note else [])))
    if not checked:
        return Score(outcome="n/a", detail=note)
    if not note:
        return Score.of(True)
    # A pass that checked only some figures leads with what it did not check.
    within = ", ".join(n.replace("_", " ") for n in declared if n in checked)
    return Score.of(True, f"{note}; within budget: {within}")
