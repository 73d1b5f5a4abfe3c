"""A conversation scenario's required calls: each call its goal names happened somewhere in the
conversation, in any turn and any order -- the tool, and each argument the goal gives under the
case's matchers (normalised entity ids by default: the user may spell `Inventory`). An argument
the goal leaves out is not compared. A call that only asked for approval counts: the request is
the call; whether it went through is the end state's to judge."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.agents import AGENTS
from ..core.calls import ToolCall
from ..core.matching import MISSING, arg_problem, same_value
from .base import Score, scorer

if TYPE_CHECKING:
    from ..core.plan import Plan
    from ..core.scenario import GoalCall
    from ..core.trial import TrialView


def _holds(want: GoalCall, call: ToolCall, specs, matchers) -> bool:
    if call.name != want.tool:
        return False
    spec = specs.get(call.name)
    kinds = spec.entities if spec is not None else {}
    taken = spec.as_taken(call.args) if spec is not None else call.args
    for arg, value in want.args.items():
        matcher = matchers.get(want.tool, {}).get(arg)
        got = taken.get(arg, MISSING)
        if matcher is None:
            if got is MISSING or not same_value(kinds.get(arg), value, got):
                return False
        elif arg_problem(matcher, value, got, kinds.get(arg)) is not None:
            return False
    return True


def _applies(case, plan: Plan) -> str | None:
    assert case.scenario is not None
    return None if case.scenario.goal.calls else "the scenario's goal names no call"


@scorer(
    name="goal_calls",
    needs=("turns",),
    cases="scenarios",
    applies=_applies,
    passes_when="every call a scenario's goal names happened in the conversation (arguments "
    "normalised, or under the case's matchers); n/a for a scripted case",
)
def goal_calls(trial: TrialView, plan: Plan) -> Score:
    if none := _applies(trial.case, plan):
        return Score(outcome="n/a", detail=none)
    assert trial.case.scenario is not None and trial.case.meta is not None
    specs = AGENTS[trial.case.meta.agent].tool_specs()
    matchers = plan.contracts(trial.case).args
    made = [c for t in trial.turns for c in [*t.calls, *t.paused]]
    missing = [
        w
        for w in trial.case.scenario.goal.calls
        if not any(_holds(w, c, specs, matchers) for c in made)
    ]
    shown = [ToolCall(w.tool, w.args).show() for w in missing]
    if shown:
        return Score.of(False, "never called: " + "; ".join(shown))
    return Score.of(
        True, f"the {len(trial.case.scenario.goal.calls)} call(s) of the goal were made"
    )
