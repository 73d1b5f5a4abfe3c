"""A complete conversation: one terminal response with content per expected turn (a turn that
ended at an approval pause counts, with its synthesised 'waiting for approval' response), and
none of them a tool result echoed back.

A response has content when it says something in words or numbers (`calls.has_content`, which
starts from the agent's own definition of tool-call residue): whitespace, an empty code fence,
HTML tags or entities and Markdown markup with no text in them say nothing, and a turn that ends
on one is not answered. Nor is a turn whose answer only echoes what a tool returned -- a small
model's habit (Qwen2.5-Coder-1.5B answered with `<tool_response>{"error": "This tool call is
rejected."}</tool_response>`, with a not-found JSON, with the raw skill list): the chat
template's tool-response blocks taken out, nothing of the agent's own is left, or what is left
is JSON equal to a result (or a part of one) the trial's tools returned.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..core.calls import has_content
from ..core.echo import echo
from .base import Score, scorer

if TYPE_CHECKING:
    from ..core.calls import Turn
    from ..core.plan import Plan
    from ..core.trial import TrialView


@scorer(
    cases="scripted",
    name="complete",
    needs=("turns",),
    reads_answers=True,
    passes_when="one terminal response with content per turn -- not empty, blank, an empty code "
    "fence, markup alone or a tool result echoed back (the approval pause counts)",
)
def complete(trial: TrialView, plan: Plan) -> Score:
    turns: list[Turn] = list(trial.turns)
    expected = len(trial.case.turns)
    if len(turns) != expected:
        return Score.of(False, f"{len(turns)} responses for {expected} turns")
    empty = [t for t in turns if not has_content(t.answer)]
    if empty:
        shown = "; ".join(f"turn {t.index}: {t.answer[:40]!r}" for t in empty)
        return Score.of(False, f"no answer with content ({shown})")
    results: list[Any] = []
    echoes = []
    for t in turns:
        results += [c.result for c in t.calls if c.result is not None]
        why = None if t.response_synthesized else echo(t.answer, results, t.prompt)
        if why:
            echoes.append(f"turn {t.index}: {why}")
    if echoes:
        return Score.of(False, "the answer only echoes a tool result (" + "; ".join(echoes) + ")")
    return Score.of(True)
