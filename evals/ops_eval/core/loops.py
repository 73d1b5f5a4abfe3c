"""When an agent is plainly looping: it makes a tool call it already made in this user turn and
gets back exactly what it got before -- no new information -- for the `REPEATS`-th time.

The tools are functions of the seed and the state store, so the same call (arguments compared
as the tool reads them, `matching.canonical`) on the same state returns the same result; a
result that differs (an approved write changed the state, a retry after an injected fault
succeeded) is new information, and a pair of its own. A loop is counted per user
turn: asking again in a later turn is a new question. Without this, a looping trial ran to
ADK's model-call limit (`play.MAX_MODEL_CALLS`) or the model's context window, minutes of a
live run spent learning nothing; with it, the trial ends as the agent's failure at once.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from .calls import ToolCall

REPEATS = 2
"""Identical call-and-result pairs after the first that end the trial: the third identical call
that brings nothing new ends it."""


class LoopDetected(RuntimeError):
    """The agent repeated a call with nothing new to learn from it (`str(exc)` says which)."""

    def __init__(self, call: ToolCall, times: int) -> None:
        super().__init__(
            f"the agent called {call.show()} {times} times in one turn and got the same result "
            "each time (no new information)"
        )
        self.call = call
        self.times = times


def _key(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


class LoopWatch:
    """Counts identical (call, result) pairs of one user turn; `saw` raises LoopDetected once a
    pair comes back for the `REPEATS`-th time after the first."""

    def __init__(self, canonical: Any = None) -> None:
        self._canonical = canonical or (lambda call: call)
        self._seen: Counter[tuple[str, str, str]] = Counter()

    def saw(self, call: ToolCall, result: dict[str, Any]) -> None:
        call = self._canonical(call)
        key = (call.name, _key(call.args), _key(result))
        self._seen[key] += 1
        if self._seen[key] > REPEATS:
            raise LoopDetected(call, self._seen[key])
