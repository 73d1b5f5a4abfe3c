"""A case's second reading of its trajectory: `contracts.mode` (say ANY_ORDER or SUBSET where the
gate reads IN_ORDER), each argument under the case's matchers, reported beside the gate.

A report scorer (`gate="report"`): it never fails a trial and never decides a case -- the gate's
mode stays `test_config.json`'s, judged by `trajectory` (which already applies the matchers).
Its value is the share of turns that hold in the second mode. A case without a mode: n/a.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.matching import entity_kinds, first_unmatched, matcher_for, mode_holds
from .base import Score, scorer

if TYPE_CHECKING:
    from ..core.plan import Plan
    from ..core.trial import TrialView


@scorer(
    cases="scripted",
    name="contract_mode",
    needs=("turns",),
    passes_when="always (a report, not a gate): per turn, whether the calls match in the case's "
    "declared `contracts.mode`, under its matchers (cases with a mode only)",
    gate="report",
)
def contract_mode(trial: TrialView, plan: Plan) -> Score:
    contracts = plan.contracts(trial.case)
    mode = contracts.mode
    if mode is None:
        return Score(outcome="n/a", detail="no second match mode declared")
    if not trial.turns:
        return Score(outcome="n/a", detail="no turn was played")
    kinds = entity_kinds(trial.case.meta.agent)
    same = matcher_for(contracts.args, kinds)
    per_turn, why = [], []
    for turn in trial.turns:
        held = mode_holds(mode, turn.expected, turn.calls, same)
        per_turn.append(1.0 if held else 0.0)
        if not held:
            reason = first_unmatched(turn.expected, turn.calls, contracts.args, kinds)
            why.append(f"turn {turn.index}: {reason}")
    detail = f"{mode} (reported, not gated), per turn {per_turn}"
    if why:
        detail += "; " + "; ".join(why)
    return Score(
        outcome="pass", detail=detail, value=sum(per_turn) / len(per_turn), per_turn=per_turn
    )
