"""Response facts, as claims: each claim the reference makes -- a service's or an incident's
status, a severity, an owner, the root cause, the approval state, the runbook or skills named,
that a deliberate negative does not exist -- is asserted by the response, and none is
contradicted (see `claims`). A turn whose response the harness wrote (the approval pause) is
not evidence; a turn whose reference makes no claim has nothing to check. When no turn is left,
the scorer is not applicable: it never passes on nothing."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..claims import Vocabulary, judge
from .base import Score, scorer

if TYPE_CHECKING:
    from ..calls import TrialView
    from ..evalset import Case
    from ..plan import Plan


def _applies(case: Case, plan: Plan) -> str | None:
    """The case's references make a checkable claim (read as a response to them would be)."""
    vocab = Vocabulary.of(plan.seed, plan.negatives)
    if any(judge(t.reference, "", vocab).applicable for t in case.turns):
        return None
    return "no turn's reference makes a checkable claim"


@scorer(
    name="facts",
    applies=_applies,
    needs=("turns",),
    passes_when="every claim of the reference (statuses, severities, owners, root cause, "
    "approval state, runbooks and skills named, negatives that do not exist) is asserted and "
    "none contradicted; n/a when no turn has a checkable claim or an agent's own answer",
)
def facts(trial: TrialView, plan: Plan) -> Score:
    vocab = Vocabulary.of(plan.seed, plan.negatives)
    bad, checked, skipped = [], 0, []
    for turn in trial.turns:
        if turn.response_synthesized:
            skipped.append(f"turn {turn.index}: the harness wrote the response at the pause")
            continue
        verdict = judge(turn.reference, turn.response, vocab)
        if not verdict.applicable:
            skipped.append(f"turn {turn.index}: the reference makes no checkable claim")
            continue
        checked += 1
        if not verdict.holds:
            bad.append(f"turn {turn.index}: {verdict.detail()}")
    if not checked:
        return Score(outcome="n/a", detail="; ".join(skipped))
    return Score.of(not bad, "; ".join(bad))
