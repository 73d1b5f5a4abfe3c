"""A conversation scenario's required calls: each call its goal names happened somewhere in the
conversation, in any turn and any order -- the tool, and each argument the goal gives under the
case's matchers (normalised entity ids by default: the user may spell `Inventory`). An argument
the goal leaves out is not compared. A call that only asked for approval counts: the request is
the call; whether it went through is the end state's to judge."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..agents import AGENTS
from ..core.call_policy import names
from ..core.calls import ToolCall
from ..core.matching import MISSING, arg_problem
from .base import Score, scorer

if TYPE_CHECKING:
    from ..core.plan import Plan
    from ..core.scenario import GoalCall
    from ..core.trial import TrialView


def _holds(want: GoalCall, call: ToolCall, specs, matchers) -> bool:
    """The call the goal names: each argument under its matcher where the case declares one,
    else as the tool sees it (`call_policy.names`)."""
    declared = matchers.get(want.tool, {})
    plain = {arg: v for arg, v in want.args.items() if arg not in declared}
    if not names(want.tool, plain, call, specs):
        return False
    spec = specs.get(call.name)
    kinds = spec.entities if spec is not None else {}
    taken = spec.as_taken(call.args) if spec is not None else call.args
    return all(
        arg_problem(declared[arg], v, taken.get(arg, MISSING), kinds.get(arg)) is None
        for arg, v in want.args.items()
        if arg in declared
    )


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
    specs = AGENTS[trial.case.meta.agent].tools()
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
