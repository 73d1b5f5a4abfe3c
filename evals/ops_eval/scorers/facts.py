"""Response facts, as claims: each claim the reference makes -- a service's or an incident's
status, a severity, an owner, the root cause, the approval state, the runbook or skills named,
that a deliberate negative does not exist -- is asserted by the response, and none is
contradicted (see `claims`). A turn whose response the harness wrote (the approval pause) is
not evidence; a turn whose reference makes no claim has nothing to check; an answer that only
echoes a tool result (`core.echo`) says nothing of its own, whatever the tool's words held.
When no turn is left, the scorer is not applicable: it never passes on nothing. A conversation
scenario's claims are its goal's: each made in some answer and not taken back by a later one."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..agents.ops_guards import Vocabulary, judge
from .base import Score, scorer

if TYPE_CHECKING:
    from ..core.evalset import Case
    from ..core.plan import Plan
    from ..core.trial import TrialView


def _applies(case: Case, plan: Plan) -> str | None:
    """A turn the agent answers itself has a reference that makes a checkable claim. A turn
    expected to end at an approval pause (a write that waits, `waits_for_approval`, and no
    decision given) is answered by the harness's pause text, which is never scored."""
    from ..core.call_policy import answered_turns

    if case.scenario is not None:
        return None if case.scenario.goal.claims else "the scenario's goal declares no claim"
    vocab = Vocabulary.of(plan.seed, plan.negatives)
    if any(judge(t.reference, "", vocab).applicable for t in answered_turns(case)):
        return None
    return "no turn the agent answers has a reference with a checkable claim"


@scorer(
    name="facts",
    applies=_applies,
    needs=("turns",),
    reads_answers=True,
    passes_when="every claim of the reference (statuses, severities, owners, root cause, "
    "approval state, runbooks and skills named, negatives that do not exist) is asserted and "
    "none contradicted; n/a when no turn has a checkable claim or an agent's own answer",
)
def facts(trial: TrialView, plan: Plan) -> Score:
    vocab = Vocabulary.of(plan.seed, plan.negatives)
    if trial.case.scenario is not None:
        if none := _applies(trial.case, plan):
            return Score(outcome="n/a", detail=none)
        return _goal_claims(trial, vocab)
    from ..core.echo import echo

    bad, checked, skipped, results = [], 0, [], []
    for turn in trial.turns:
        results += [c.result for c in turn.calls if c.result is not None]
        if turn.response_synthesized:
            skipped.append(f"turn {turn.index}: the harness wrote the response at the pause")
            continue
        said = "" if echo(turn.answer, results, turn.prompt) else turn.answer  # not its own words
        verdict = judge(turn.reference, said, vocab)
        if not verdict.applicable:
            skipped.append(f"turn {turn.index}: the reference makes no checkable claim")
            continue
        checked += 1
        if not verdict.holds:
            bad.append(f"turn {turn.index}: {verdict.detail()}")
    if not checked:
        return Score(outcome="n/a", detail="; ".join(skipped))
    return Score.of(not bad, "; ".join(bad))


def _goal_claims(trial: TrialView, vocab: Vocabulary) -> Score:
    """A scenario's claims: each asserted by some answer of the agent, and contradicted by no
    later one (an answer may be overtaken: "down" before a restart, "up" after it)."""
    assert trial.case.scenario is not None
    answers = [(t.index, t.answer) for t in trial.turns if not t.response_synthesized]
    bad = []
    for claim in trial.case.scenario.goal.claims:
        verdicts = [(index, judge(claim, answer, vocab)) for index, answer in answers]
        said = [index for index, v in verdicts if v.holds]
        if not said:
            bad.append(f"no answer says {claim!r}")
            continue
        later = [f"turn {i}: {v.detail()}" for i, v in verdicts if i > said[-1] and v.contradicted]
        if later:
            bad.append(f"{claim!r} said in turn {said[-1]}, then contradicted ({'; '.join(later)})")
    n = len(trial.case.scenario.goal.claims)
    return Score.of(not bad, "; ".join(bad) or f"the {n} claim(s) of the goal were made")
