"""The scorer registry: every scorer of a trial, declared once (see `base`), one module each.

`score_trial` applies them all to a played trial: an error trial gets no scores, a looping agent
fails every gating scorer that applies to its case (the others, and its report scorers, are
`n/a` with the loop as their reason: a report never fails; a judge's scorer is `skipped`: no
judge was asked), a scorer whose needs the trial view lacks is `n/a`, and a scorer that crashes
makes the trial an error rather than a verdict. Calls are scored as their tools take them
(`matching.canonical_trial`).

Holds, one module per scorer:
- the calls: `trajectory` (the trajectory gate, ADK's verdict per turn), `contract_mode` (the
  trajectory read again under the case's contract mode; a report), `partial_credit` (precision,
  recall, F1 and edit distance of the calls; a report), `tool_policy` (writes as expected, and a
  write that waits for approval asked), `call_order` (no write before a read of its target),
  `forbidden_calls` (what the contracts forbid), `goal_calls` (a scenario's required calls),
  `budget` (calls, model calls, tokens and seconds per turn), `fault_handling` (after an
  injected tool fault: one retry at most, nothing acted on or invented);
- the answer: `facts` (the reference's claims asserted, none contradicted), `grounded` (its
  claims held to this trial's tool results), `complete` (a response with content per turn, no
  tool result echoed back);
- the response checks a case declares, sharing one registration and one reading of the trial
  (`_response`): `contains`, `not_contains`, `exact`, `regex`, `json_valid`, `json_equal`,
  `numeric_range`, `pydantic_model` (a declared answer model), `llm_judge` (a judge grades the
  answer against the case's rubric);
- the outcome: `end_state` (the store equals the approved writes replayed on a fresh one),
  `conversation_end` (how a scenario's conversation ended: the user, or a limit).

May import: `base`, `core`, `models` (the judge), `playing` (faults, the direct tool calls).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..base.exits import describe
from .base import Outcome, Score, Scorer, registered, scorer

if TYPE_CHECKING:
    from ..core.plan import Plan
    from ..core.trial import TrialView

__all__ = ["Outcome", "Score", "Scorer", "markdown_table", "registered", "score_trial", "scorer"]


class ScorerCrashed(RuntimeError):
    """A scorer raised instead of returning a Score: the trial has no verdict."""


def score_trial(trial: TrialView, plan: Plan) -> dict[str, Score]:
    """Every registered scorer's verdict on `trial`, by name."""
    if trial.error:
        return {}
    if trial.looped:
        return {name: _looped(entry, trial, plan) for name, entry in registered().items()}
    from ..core.matching import canonical_trial

    trial = canonical_trial(trial)  # calls compared as the tools see them
    have = trial.provides()
    scores = {}
    for name, entry in registered().items():
        why = entry.other_kind(trial.case)
        if why:
            scores[name] = Score(outcome="n/a", detail=why)
            continue
        missing = entry.needs - have
        if missing:
            lacking = ", ".join(sorted(missing))
            scores[name] = Score(outcome="n/a", detail=f"needs {lacking}, which this trial lacks")
            continue
        try:
            scores[name] = entry.func(trial, plan)
        except Exception as exc:
            raise ScorerCrashed(f"scorer {name}: {describe(exc)}") from exc
    return scores


def _looped(entry: Scorer, trial: TrialView, plan: Plan) -> Score:
    """A looping trial's verdict: fail where the scorer applies to its case, else n/a. A judge's
    scorer that applies is `skipped`: no judge was asked, and a verdict in its name would be one
    no judge gave (the trial fails on the others)."""
    assert trial.looped is not None
    if entry.gate == "report":
        return Score(outcome="n/a", detail=trial.looped)
    why = entry.not_applicable(trial.case, plan)
    if why:
        return Score(outcome="n/a", detail=f"{trial.looped} ({why})")
    if entry.uses_judge:
        return Score.skipped(f"{trial.looped}: no judge was asked")
    return Score.of(False, trial.looped)


def markdown_table() -> str:
    """The scorer table of docs/scoring.md, from the declarations."""
    rows = ["| scorer | passes when |", "|---|---|"]
    rows += [f"| `{s.name}` | {s.passes_when} |" for s in registered().values()]
    return "\n".join(rows)
