"""The one model of a tool call and of a played user turn.

`ToolCall` is what a case expects, what a scripted model makes, what the agent made (with the
result it got back), what waits for approval, and what a run record stores. `Turn` is one user
turn as played: the calls with their results, the writes that paused for approval, the answer.
A trial as every scorer reads it is `trial.TrialView`.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import field
from typing import Any

from pydantic import ConfigDict, Field, model_validator
from pydantic.dataclasses import dataclass as pydantic_dataclass
from pydantic_core import PydanticCustomError

from ..base.strict import Strict

# A code fence, with its language when one ends the line (```` ```INC-002``` ```` is no fence
# language: it is the answer, fenced inline).
_FENCE = re.compile(r"(```|~~~)(?:[\w+.-]*(?=[ \t]*(?:\n|$)))?")
# A tool call written out as text, chat-template markup (`<tool_call>`, `<|im_end|>`), an HTML
# tag -- a lowercase name, so `<INC-002>` stays -- and an HTML entity.
_CALL = re.compile(r"<tool_call>.*?(</tool_call>|$)", re.DOTALL)
_TAG = re.compile(r"<\|[\w|]*\|>|</?[a-z][a-z0-9_]*(?:\s[^<>]*)?/?>|&#?\w+;")


def has_content(text: str) -> bool:
    """Whether an answer says anything. Nothing, when the agent's own definition of tool-call
    residue holds (`ops_copilot.residue.content_free`: whitespace, empty fences, empty markup);
    nor when, outside code fences, tool calls written as text and markup, no letter, digit or
    symbol (`✅`) is left (Markdown's own -- `#`, `*`, `-`, `>`, `|`, brackets -- is none of
    these): an empty fence (what a model that fenced its tool call leaves once the call is taken
    out), a `<tool_call>` block or tags alone say nothing."""
    from ..agents.ops_guards import content_free

    if content_free(text):
        return False
    bare = _TAG.sub(" ", _CALL.sub(" ", _FENCE.sub(" ", text)))
    return any(ch.isalnum() or unicodedata.category(ch) == "So" for ch in bare)


@pydantic_dataclass(frozen=True, config=ConfigDict(extra="forbid"))
class ToolCall:
    """A tool call: name and arguments; the call id and the tool's result when known."""

    name: str
    args: dict[str, Any] = field(default_factory=dict)
    id: str | None = None
    result: dict[str, Any] | None = None

    def same(self, other: ToolCall) -> bool:
        """Same tool, same arguments (ADK's comparison: whole-args equality, ids ignored)."""
        return self.name == other.name and self.args == other.args

    def show(self) -> str:
        """`name(key=value, ...)`, for details and messages."""
        return f"{self.name}({', '.join(f'{k}={v}' for k, v in self.args.items())})"


def in_order(
    actual: Sequence[ToolCall],
    expected: Sequence[ToolCall],
    same: Callable[[ToolCall, ToolCall], bool] | None = None,
) -> bool:
    """True when `expected` is a subsequence of `actual` (ADK's IN_ORDER). `same(expected,
    actual)` compares two calls; by default ADK's whole-args equality (`ToolCall.same`)."""
    it = iter(actual)
    if same is None:
        return all(any(a.same(e) for a in it) for e in expected)
    return all(any(same(e, a) for a in it) for e in expected)


class InjectedFault(Strict):
    """A tool call the harness made fail (a case's `contracts.faults`): kept in the record so a
    report can tell an injected failure from a real one -- the model saw only the result."""

    model_config = ConfigDict(allow_inf_nan=False)

    tool: str
    kind: str
    when: str
    args: dict[str, Any] = {}

    def show(self) -> str:
        return f"fault injected: {self.tool} {self.kind} ({self.when})"


class Turn(Strict):
    """One user turn as played (and as a run record stores it)."""

    model_config = ConfigDict(allow_inf_nan=False)

    index: int
    prompt: str
    reference: str = ""
    expected: list[ToolCall] = []
    calls: list[ToolCall] = []
    """The agent's tool calls, each with the last result it got; approval requests left out."""
    paused: list[ToolCall] = []
    """Writes that asked for a human approval during this turn."""
    pending: list[ToolCall] = []
    """Writes still waiting for approval when the turn ended."""
    answered: list[str] = []
    """The approval decisions given in this turn, one per round of pauses."""
    response: str = ""
    response_synthesized: bool = False
    """The turn ended at an approval pause with no text; `response` says what waits."""
    texts: list[str] = []
    """Every text the agent sent to the user in this turn, in order (`response` is the last, or
    the pause text): text sent alongside a tool call is shown to the user too."""
    prompt_tokens: int = 0
    output_tokens: int = 0
    seconds: float = 0.0
    faults: list[InjectedFault] = []
    """The tool faults the harness injected in this turn, in order (`faults.py`)."""
    model_calls: int | None = None
    """Model responses in this turn (approval rounds included); None: not recorded (a turn
    built by hand, or a record written before it was counted)."""
    servers: list[str] | None = Field(default=None, exclude_if=lambda v: v is None)
    """The server that answered each model call of this turn, in order (one per model call);
    None: not routed (one server, or a record written before servers were named) -- and then
    not written, so such a record reads as it always did."""

    @property
    def answer(self) -> str:
        """What the model itself said last: `response` without the warning the agent's answer
        guard appended (the guard's words, which quote the flagged claims: never scored as the
        model's)."""
        from ..agents.ops_guards import own_words

        return own_words(self.response)

    @model_validator(mode="after")
    def _a_server_per_model_call(self) -> Turn:
        """Per-server counts add up to the model calls, or a report would misstate them."""
        counted = self.servers is not None and self.model_calls is not None
        if counted and len(self.servers or []) != self.model_calls:
            raise PydanticCustomError(
                "servers_mismatch",
                "servers names {servers} server(s) for {calls} model call(s)",
                {"servers": len(self.servers or []), "calls": self.model_calls},
            )
        return self


def pause_text(pending: list[ToolCall]) -> str:
    """The response of a turn that ended at an approval pause with nothing said."""
    return f"Waiting for approval: {', '.join(c.show() for c in pending)}. No state change."
