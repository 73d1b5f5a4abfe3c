"""A complete conversation: one terminal response with content per expected turn (a turn that
ended at an approval pause counts, with its synthesised 'waiting for approval' response).

A response has content when it says something in words or numbers (`calls.has_content`):
whitespace, an empty code fence, HTML tags or entities and Markdown markup with no text in them
say nothing, and a turn that ends on one is not answered.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.calls import has_content
from .base import Score, scorer

if TYPE_CHECKING:
    from ..core.plan import Plan
    from ..core.trial import TrialView


@scorer(
    cases="scripted",
    name="complete",
    needs=("turns",),
    reads_answers=True,
    passes_when="one terminal response with content per turn -- not empty, blank, an empty code "
    "fence or markup alone (the approval pause counts)",
)
def complete(trial: TrialView, plan: Plan) -> Score:
    responses = [t.answer for t in trial.turns]
    expected = len(trial.case.turns)
    if len(responses) != expected:
        return Score.of(False, f"{len(responses)} responses for {expected} turns")
    empty = [i for i, r in enumerate(responses, 1) if not has_content(r)]
    if empty:
        shown = "; ".join(f"turn {i}: {responses[i - 1][:40]!r}" for i in empty)
        return Score.of(False, f"no answer with content ({shown})")
    return Score.of(True)
