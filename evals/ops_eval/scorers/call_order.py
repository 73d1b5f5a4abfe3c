"""Order rules of the contracts: `read_before_write` -- no write before a read of the same
target (diagnose, then remediate). A read names a target when one of its entity arguments names
the same seed entity after normalisation: get_service_status(name=inventory) before
restart_service(name=inventory), get_incident(incident_id=INC-002) before a note on INC-002. A
read in an earlier turn counts; an attempted write (paused, denied) counts as a write."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..agents import AGENTS
from ..core.call_policy import placed, writes_before_reads
from .base import Score, scorer

if TYPE_CHECKING:
    from ..core.evalset import Case
    from ..core.plan import Plan
    from ..core.trial import TrialView


def _applies(case: Case, plan: Plan) -> str | None:
    return None if "read_before_write" in plan.contracts(case).order else "no order rule declared"


@scorer(
    name="call_order",
    needs=("turns",),
    passes_when="under `read_before_write`, every write's target was read before it",
    applies=_applies,
)
def call_order(trial: TrialView, plan: Plan) -> Score:
    if none := _applies(trial.case, plan):
        return Score(outcome="n/a", detail=none)
    specs = AGENTS[trial.case.meta.agent].tools()
    calls = placed((t.index, t.calls) for t in trial.turns)
    bad = [
        f"{at.where()} before any read of {kind} {name}"
        for at, (kind, name) in writes_before_reads(calls, specs)
    ]
    if bad:
        return Score.of(False, f"read_before_write broken {len(bad)} time(s): " + "; ".join(bad))
    return Score.of(True)
