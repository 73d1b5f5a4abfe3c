"""How a scenario's conversation ended: the user ended it (a rule or the model's stop signal, or
nothing left to say) -- then the goal scorers judge what it achieved -- or a limit ended it as
the agent's failure: the scenario's turns or seconds ran out while the agent had the turn or
had not led the user to the end. A limit that is the user's failure makes the trial an error
instead (`playing.scenarios.conversation`): it says nothing about the agent."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .base import Score, scorer

if TYPE_CHECKING:
    from ..core.plan import Plan
    from ..core.trial import TrialView


@scorer(
    name="conversation_end",
    needs=("turns",),
    cases="scenarios",
    passes_when="the user ended the scenario's conversation, not a turn or time limit that was "
    "the agent's failure; n/a for a scripted case",
)
def conversation_end(trial: TrialView, plan: Plan) -> Score:
    ended = trial.conversation
    if ended is None:
        return Score.error("the scenario's conversation was not recorded")
    return Score.of(ended.ended_by == "user", f"{len(trial.turns)} turn(s), {ended.said()}")
