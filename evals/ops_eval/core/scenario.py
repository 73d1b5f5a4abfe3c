"""A conversation scenario's own part of `meta`: what ADK's `conversation_scenario` (a starting
prompt, a plan in words, a persona) has no field for.

- `kind`: which conversation it tests (a clarifying question, an id given late, ...), for the
  reports and for the saboteur check that every kind can fail;
- `user`: the scripted user's rules, read in order, the first that holds makes the move -- on an
  approval request for a tool (with these arguments), on an answer that asks or says something
  (a regular expression), or otherwise: say a text, approve with a rationale, deny, or stop;
- `goal`: what the conversation must achieve, as state and claims -- the writes the store ends
  with (approved by whom, with which rationale), calls that must happen somewhere, claims the
  agent must have made to the user. The scorers judge these (`end_state`, `goal_calls`,
  `facts`), and the case's contracts (forbidden calls, order rules) apply as to any case;
- `reference`: one conversation that meets the goal with the scripted user -- what the scripted
  oracle agent plays, and what the validator holds to the seed and to the user's rules. It is
  never scored: another conversation that meets the goal passes as well;
- `limits`: turns and seconds after which a conversation that goes nowhere is ended.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from ..agents.ops_world import Approval
from ..base.strict import Strict

ScenarioKind = Literal[
    "clarify",
    "late-detail",
    "approve-after-risk",
    "approval-withdrawn",
    "wrong-service",
    "pasted-attack",
    "stops-halfway",
    "denied",
    "memory",
]


def _approval(rationale: str, approver: str | None) -> tuple[str, str | None]:
    """The rationale and approver in the normal form the tools give them, or ValueError with the
    tools' own reason for refusing them."""
    approval = Approval.model_validate({"rationale": rationale, "approver": approver or ""})
    return approval.rationale, approval.approver or None


class Approve(Strict):
    """The user approves the write that waits, with a rationale (and who they are)."""

    rationale: str
    approver: str | None = None

    @model_validator(mode="after")
    def _as_the_tools_take_it(self) -> Approve:
        self.rationale, self.approver = _approval(self.rationale, self.approver)
        return self


class UserRule(Strict):
    """When: `approval` (the agent waits for approval of this tool, with `args` among its
    arguments), `asks` (the answer has a question matching this pattern), `said` (the answer
    matches this pattern) or `otherwise`. Then exactly one move: `say`, `approve`, `deny`,
    `stop`. `once`: the rule fires at most once in a conversation."""

    approval: str | None = None
    args: dict[str, Any] = Field(default_factory=dict)
    asks: str | None = None
    said: str | None = None
    otherwise: bool = False
    say: str | None = None
    approve: Approve | None = None
    deny: bool = False
    stop: bool = False
    once: bool = False

    @field_validator("asks", "said")
    @classmethod
    def _compiles(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                re.compile(value)
            except re.error as exc:
                raise ValueError(f"not a regular expression ({exc})") from None
        return value

    @model_validator(mode="after")
    def _one_when_one_move(self) -> UserRule:
        whens = [self.approval is not None, self.asks is not None, self.said is not None]
        whens.append(self.otherwise)
        if sum(whens) != 1:
            raise ValueError("name exactly one of approval, asks, said, otherwise")
        moves = [self.say is not None, self.approve is not None, self.deny, self.stop]
        if sum(moves) != 1:
            raise ValueError("make exactly one move: say, approve, deny or stop")
        if (self.approve is not None or self.deny) and self.approval is None:
            raise ValueError("approve and deny answer an approval request: name its tool")
        if self.args and self.approval is None:
            raise ValueError("args belong to an approval rule")
        return self

    def when(self) -> str:
        """The rule's condition, as messages name it."""
        if self.approval is not None:
            args = ", ".join(f"{k}={v!r}" for k, v in self.args.items())
            return f"approval of {self.approval}({args})"
        if self.asks is not None:
            return f"asks /{self.asks}/"
        return f"said /{self.said}/" if self.said is not None else "otherwise"


class GoalWrite(Strict):
    """A write the store must end with: the tool, its arguments, and for a write that needs
    approval who approved it with which rationale."""

    tool: str
    args: dict[str, Any] = Field(default_factory=dict)
    approver: str | None = None
    rationale: str | None = None

    @model_validator(mode="after")
    def _as_the_tools_take_it(self) -> GoalWrite:
        if self.rationale is not None:
            self.rationale, self.approver = _approval(self.rationale, self.approver)
        return self


class GoalCall(Strict):
    """A call that must happen somewhere in the conversation (arguments under the case's
    matchers; an argument left out is not compared)."""

    tool: str
    args: dict[str, Any] = Field(default_factory=dict)


class Goal(Strict):
    """What the conversation must achieve. No writes: the store must end as it began."""

    writes: list[GoalWrite] = Field(default_factory=list)
    calls: list[GoalCall] = Field(default_factory=list)
    claims: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _something(self) -> Goal:
        if not (self.calls or self.claims or self.writes):
            raise ValueError("declare at least one call or claim the conversation must achieve")
        return self


class ReferenceCall(Strict):
    name: str
    args: dict[str, Any] = Field(default_factory=dict)


class ReferenceTurn(Strict):
    """One turn of the reference conversation: the user's text, the agent's calls, its answer
    (empty when the turn ends at an approval request the user answers with words)."""

    user: str = Field(min_length=1)
    calls: list[ReferenceCall] = Field(default_factory=list)
    answer: str = ""


class Limits(Strict):
    """A conversation that reaches `turns` user turns, or runs `seconds`, is ended there."""

    turns: int = Field(default=8, ge=1, le=50)
    seconds: float = Field(default=300.0, gt=0, le=3600)


class ScenarioMeta(Strict):
    """`meta.scenario` of a case that has a `conversation_scenario`."""

    kind: ScenarioKind
    user: list[UserRule] = Field(min_length=1)
    goal: Goal
    reference: list[ReferenceTurn] = Field(min_length=1)
    limits: Limits = Field(default_factory=Limits)
    approver: str = "oncall"
    """Who the model-backed user approves as (the scripted user's rules name theirs)."""
