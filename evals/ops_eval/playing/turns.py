"""A played user turn (`calls.Turn`) from the runs it took: the calls with their results, the
writes that paused, the answer, the tokens and model calls -- shared by scripted cases
(`play.py`) and conversation scenarios (`conversation.py`)."""

from __future__ import annotations

from typing import Any

from ..core.calls import ToolCall, Turn, has_content, pause_text
from ..core.model_call import CONFIRMATION
from .session import SessionTurn, server_of_event

MAX_APPROVAL_ROUNDS = 5
UNNAMED = "(unnamed)"  # a routed model's response that named no server


def _with_results(parts: list[SessionTurn]) -> list[ToolCall]:
    """The agent's calls in order, each with its result. A result goes to the first call of its
    name and id that has none yet (ids need not be unique: some servers reuse them), else to the
    last such call: a paused write got a placeholder, and gets its real result when the run that
    answers the pause executes it."""
    calls: list[tuple[ToolCall, list[dict]]] = []
    for part in parts:
        calls += [(c, []) for c in part.tool_calls if c.name != CONFIRMATION]
        for r in part.tool_results:
            mine = [got for c, got in calls if (c.name, c.id) == (r.name, r.id)]
            if mine:
                next((got for got in mine if not got), mine[-1]).append(r.response)
    return [ToolCall(c.name, c.args, result=got[-1] if got else None) for c, got in calls]


def _model_events(parts: list[SessionTurn]) -> list[Any]:
    """The events that are model responses in these runs, for per-turn budgets and server
    counts: complete model-role events, less ADK's own approval request (an event it makes
    itself, with the model's role)."""
    found = []
    for event in (e for part in parts for e in part.events):
        if event.partial or event.content is None or event.content.role != "model":
            continue
        calls = event.get_function_calls()
        if not (calls and all(c.name == CONFIRMATION for c in calls)):
            found.append(event)
    return found


def turn_of(
    index: int, prompt: str, parts: list[SessionTurn], answered: list[str], by_server: bool
) -> Turn:
    """One user turn from the runs it took; with `by_server`, which server answered each of its
    model calls (a response no server was named for says UNNAMED: a count must not drift)."""
    calls = _with_results(parts)
    events = _model_events(parts)
    pending = [ToolCall(p.call.name, p.call.args) for p in parts[-1].pending]
    texts = [t for part in parts for t in part.texts]
    # the answer: the last text that says something (an empty fence left beside a later call
    # does not erase what was said), else the last text
    said = [t for t in texts if has_content(t)]
    response = (said or texts or [""])[-1]
    # a pause with nothing said (no text, or text with no content in it) is the pause
    synthesized = not has_content(response) and bool(pending)
    return Turn(
        index=index,
        prompt=prompt,
        calls=calls,
        paused=[ToolCall(p.call.name, p.call.args) for part in parts for p in part.pending],
        pending=pending,
        answered=answered,
        response=pause_text(pending) if synthesized else response,
        response_synthesized=synthesized,
        texts=texts,
        prompt_tokens=sum(p.prompt_tokens for p in parts),
        output_tokens=sum(p.output_tokens for p in parts),
        model_calls=len(events),
        servers=[server_of_event(e) or UNNAMED for e in events] if by_server else None,
    )
