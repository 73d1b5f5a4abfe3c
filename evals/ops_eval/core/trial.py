"""One case x repeat after play (`TrialView`): what playing hands to scoring -- the turns, the
state before and after, the audit rows and notes, ADK's events, and why it ended early -- and
how a scenario's conversation went (`Conversation`)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from ..base.strict import Strict
from .calls import ToolCall, Turn

if TYPE_CHECKING:
    from ..agents.ops_state import AuditRow, Note, Snapshot
    from .evalset import Case


@dataclass
class TrialView:
    """One case x repeat after play. `error` set: the trial could not be played (model error,
    timeout); `looped` set: the agent ran past the model-call limit (its own failure)."""

    case: Case
    repeat: int
    turns: list[Turn] = field(default_factory=list)
    before: Snapshot | None = None
    after: Snapshot | None = None
    audit: list[AuditRow] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)
    events: list[Any] | None = None
    """ADK's session events; None when the view holds none (scorers that need them are n/a)."""
    error: str | None = None
    looped: str | None = None
    seconds: float = 0.0
    conversation: Conversation | None = None
    """A scenario's: who played the user and how the conversation ended."""

    def provides(self) -> frozenset[str]:
        """What this view holds, for scorers that declare what they need."""
        have = {"turns"}
        if self.events is not None:
            have.add("events")
        if self.before is not None and self.after is not None:
            have.add("state")
        return frozenset(have)

    def expected_calls(self) -> Iterable[ToolCall]:
        return (c for t in self.turns for c in t.expected)


class Approval(Strict):
    """An approval request the simulated user answered, and how."""

    turn: int
    tool: str
    args: dict[str, Any] = {}
    decision: Literal["approve", "deny"]
    rationale: str | None = None
    approver: str | None = None


class Conversation(Strict):
    """How a scenario's conversation went: who played the user, who ended it and why, and --
    when a limit ended it or a side failed -- whose failure that was."""

    user: str
    ended_by: Literal["user", "turn-limit", "time-limit", "user-failed", "error"]
    reason: str
    blame: Literal["agent", "user"] | None = None
    approvals: list[Approval] = []

    def said(self) -> str:
        """One line for reports: who ended the conversation, why, and whose failure it was."""
        whose = f" -- the {self.blame}'s failure" if self.blame else ""
        return f"ended by {self.ended_by} ({self.user} user): {self.reason}{whose}"
