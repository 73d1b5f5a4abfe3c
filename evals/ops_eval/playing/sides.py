"""Whose failure a trial's error is. An errored trial says nothing about the agent, but a person
reading `every trial errored` must know where to look: at the model server, at the simulated
user's model, at a tool of the agent, at the trial's time limit, or at a scorer. So a trial's
error starts with its side (`blamed`), as one of `SIDES`:

- `model: ...` -- the agent's model failed: unreachable, an error response, garbage it could
  not turn into a call, a replay miss;
- `simulated user: ...` -- the model-backed user of a conversation scenario failed, or ran out
  of the scenario's time while it was replying;
- `tool fault: ...` -- a tool of the agent raised (not an injected fault: those are results);
- `timeout: ...` -- the whole trial ran past the run's `--timeout`;
- `scorer: ...` -- a scorer crashed on what was played.

`every_trial_errored` is the run's closing note when no trial has a verdict: each side with its
count and its first error, never "the model" for a side that is not the model's. An error that
names no side (a record written before errors named theirs) keeps the old reading.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Literal

Side = Literal["model", "simulated user", "tool fault", "timeout", "scorer"]
SIDES: tuple[Side, ...] = ("model", "simulated user", "tool fault", "timeout", "scorer")
_WHO: dict[Side | None, tuple[str, str]] = {
    "model": ("the model", "failed"),
    "simulated user": ("the simulated user", "failed"),
    "tool fault": ("a tool", "raised"),
    "timeout": ("the trial", "timed out"),
    "scorer": ("a scorer", "crashed"),
    None: ("an error naming no side", "ended the trial"),
}
TIMED_OUT = "timed out"
DETAIL_CHARS = 100
UNNAMED = "every trial errored: the model is unreachable or broken"
"""The note of a record whose errors name no side: what it always said."""


def blamed(side: Side, text: str) -> str:
    """A trial's error, naming its side first."""
    return f"{side}: {text}"


def side_of(error: str | None) -> tuple[Side | None, str]:
    """The side an error names and the rest of it; (None, error) when it names none."""
    text = error or ""
    for side in SIDES:
        if text.startswith(f"{side}: "):
            return side, text[len(side) + 2 :]
    return None, text


def every_trial_errored(errors: Sequence[str | None]) -> str:
    """Why a run whose every trial errored has no verdict, by side, most trials first: `every
    trial errored: the simulated user timed out in 3 of 3 (limit 300 s, ...)`."""
    read = [side_of(e) for e in errors]
    counts = Counter(side for side, _ in read)
    if set(counts) == {None}:
        return UNNAMED
    parts = []
    for side, n in counts.most_common():
        detail = next(rest for s, rest in read if s == side)
        who, verb = _WHO[side]
        if detail.startswith(TIMED_OUT):  # `timed out (limit 300 s, ...)`: said as the verb
            verb, detail = TIMED_OUT, detail[len(TIMED_OUT) :].strip(" ()")
        if len(detail) > DETAIL_CHARS:
            detail = detail[: DETAIL_CHARS - 1] + "…"
        parts.append(f"{who} {verb} in {n} of {len(errors)}" + (f" ({detail})" if detail else ""))
    return "every trial errored: " + "; ".join(parts)
