"""The trajectory under the case's contracts: ADK's per-turn comparison, with each argument held
to its declared matcher instead of exact equality, in the gate's mode from `test_config.json`.

It applies only to cases (or sets) that declare argument matchers or a match mode; elsewhere
it would repeat the `trajectory` gate. A declared `contracts.mode` is a second reading, reported
in the detail and never gated: the gate's mode stays `test_config.json`'s.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..matching import entity_kinds, first_unmatched, matcher_for, mode_holds
from .base import Score, scorer

if TYPE_CHECKING:
    from ..calls import TrialView
    from ..plan import Plan


@scorer(
    name="contract_trajectory",
    needs=("turns",),
    passes_when="every turn's calls match the expected ones in the gate's mode, each argument "
    "under its declared matcher (cases with matchers or a mode only)",
)
def contract_trajectory(trial: TrialView, plan: Plan) -> Score:
    contracts = plan.contracts(trial.case)
    if not contracts.args and contracts.mode is None:
        return Score(outcome="n/a", detail="no argument matchers or match mode declared")
    kinds = entity_kinds(trial.case.meta.agent)
    same = matcher_for(contracts.args, kinds)
    mode = plan.criteria.match_type
    per_turn, why = [], []
    for turn in trial.turns:
        held = mode_holds(mode, turn.expected, turn.calls, same)
        per_turn.append(1.0 if held else 0.0)
        if not held:
            reason = first_unmatched(turn.expected, turn.calls, contracts.args, kinds)
            why.append(f"turn {turn.index}: {reason}")
    detail = f"{mode} under matchers, per turn {per_turn}"
    if why:
        detail += "; " + "; ".join(why)
    if contracts.mode is not None:
        second = [mode_holds(contracts.mode, t.expected, t.calls, same) for t in trial.turns]
        detail += f"; {contracts.mode} (reported, not gated): per turn {[float(s) for s in second]}"
    return Score.of(
        all(per_turn),
        detail,
        value=sum(per_turn) / len(per_turn) if per_turn else 1.0,
        per_turn=per_turn,
    )
