"""The user's side of a conversation scenario: a scripted user for CI, a model-backed one for live
runs. Both answer the same question -- what does the user do next, given the conversation so far
and the writes waiting for approval -- with a `Move`: say something, approve (with a rationale),
deny, or stop.

The scripted user follows the scenario's rules (`core.scenario.UserRule`), first match wins, so
a run against a scripted agent is deterministic. When no rule fits the agent's answer the user
has nothing to say and stops: the goal scorers then judge what the agent achieved.

The model-backed user is our own, built on ADK's: ADK's prompt template and pre-built personas
(`get_llm_backed_user_simulator_prompt`, its stop signal) with one protocol added for approval
requests, asked of any model the agent can use. ADK's `LlmBackedUserSimulator` is not used as
it is because it builds its model from a name through ADK's registry (so no embedded server
handle and no recording to replay) and it has no notion of an approval request: it could only
answer one with words. Its requests go through the same model object as the agent's, so
`--record` keeps the user's turns beside the agent's and replay reproduces both.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

from ...core.calls import ToolCall, Turn
from ...core.evalset import ApprovalDecision

if TYPE_CHECKING:
    from ...core.evalset import Case
    from ...core.scenario import ScenarioMeta, UserRule
    from ..session import PendingWrite

MoveKind = Literal["say", "approve", "deny", "stop"]
STOP_SIGNAL = "</finished>"


class UserFailed(RuntimeError):
    """The simulated user produced no usable move (its model said nothing, or garbage): the
    user's failure, not the agent's."""


@dataclass(frozen=True)
class Move:
    """What the user does next, and why (the rule, or the model's own words)."""

    kind: MoveKind
    text: str = ""
    decision: ApprovalDecision | None = None
    why: str = ""


class User(Protocol):
    name: str

    async def next(self, turns: list[Turn], pending: list[PendingWrite]) -> Move: ...


def _answer(turn: Turn | None) -> str:
    """Everything the agent said to the user in its latest turn."""
    if turn is None:
        return ""
    return "\n".join(turn.texts) or turn.response


def _questions(text: str) -> list[str]:
    """The sentences of `text` that ask something."""
    return [s for s in re.split(r"(?<=[.!?])\s+|\n+", text) if s.strip().endswith("?")]


def rule_fires(rule: UserRule, answer: str, pending: list[ToolCall], specs: Any) -> ToolCall | bool:
    """Whether `rule` holds for the agent's `answer` and the writes waiting (for an approval
    rule: the write it answers)."""
    if rule.approval is not None:
        from ...core.call_policy import names

        return next((c for c in pending if names(rule.approval, rule.args, c, specs)), False)
    if rule.asks is not None:
        return any(re.search(rule.asks, q, re.IGNORECASE) for q in _questions(answer))
    if rule.said is not None:
        return re.search(rule.said, answer, re.IGNORECASE) is not None
    return rule.otherwise


def move_of(rule: UserRule, approver: str) -> Move:
    why = f"rule {rule.when()}"
    if rule.say is not None:
        return Move("say", text=rule.say, why=why)
    if rule.approve is not None:
        decision = ApprovalDecision(
            decision="approve",
            rationale=rule.approve.rationale,
            approver=rule.approve.approver or approver,
        )
        return Move("approve", decision=decision, why=why)
    if rule.deny:
        return Move("deny", decision=ApprovalDecision(decision="deny"), why=why)
    return Move("stop", why=why)


@dataclass
class ScriptedUser:
    """The scenario's rules, in order; a `once` rule fires at most once."""

    scenario: ScenarioMeta
    specs: Any
    name: str = "scripted"
    fired: set[int] = field(default_factory=set)

    async def next(self, turns: list[Turn], pending: list[PendingWrite]) -> Move:
        answer = _answer(turns[-1] if turns else None)
        waiting = [p.call for p in pending]
        for index, rule in enumerate(self.scenario.user):
            if rule.once and index in self.fired:
                continue
            if rule_fires(rule, answer, waiting, self.specs):
                self.fired.add(index)
                return move_of(rule, self.scenario.approver)
        return Move("stop", why="no rule of the scripted user fits the agent's answer")


_PROTOCOL = """

# Approval requests

When the conversation shows the Agent waiting for your approval of an action, reply with
exactly one of:
* `APPROVE: <why you approve>` -- only if the Conversation Plan says to approve it;
* `DENY: <why not>` -- if the plan says not to, or to withdraw;
* a question or a remark, if the plan says to ask something before deciding.

If you want to end the conversation, output `{{ stop_signal }}`.

# Conversation Plan

{{ conversation_plan }}

# Conversation History

{{ conversation_history }}
"""

_APPROVE = re.compile(r"^\W*approve[d]?\b\W*(.*)$", re.IGNORECASE | re.DOTALL)
_DENY = re.compile(r"^\W*den(?:y|ied)\b", re.IGNORECASE)


def history(turns: list[Turn], pending: list[PendingWrite]) -> str:
    """The conversation as the user saw it: what each side said, and the approval requests (not
    the agent's tool calls, which a user does not see)."""
    lines = []
    for n, turn in enumerate(turns, start=1):
        lines.append(f"user: {turn.prompt}")
        said = [t for t in turn.texts if t.strip()]
        lines += [f"agent: {t}" for t in said]
        for call, decision in zip(turn.paused, turn.answered, strict=False):
            lines.append(f"[approval request: {call.show()} -- you answered {decision}]")
        if n < len(turns) or not pending:  # a request the user answered with words
            lines += [
                f"[approval request: {c.show()} -- you did not answer it]" for c in turn.pending
            ]
    for p in pending:
        hint = f" ({p.hint})" if p.hint else ""
        lines.append(f"[the agent waits for your approval: {p.call.show()}{hint}]")
    return "\n\n".join(lines)


@dataclass
class ModelUser:
    """A model plays the user, with ADK's user-simulator prompt and the scenario's persona."""

    case: Case
    model: Any
    name: str = "model"
    refused: bool = False
    """Its last reply was an approval the tools refused (sent as words instead)."""

    def prompt(self, turns: list[Turn], pending: list[PendingWrite]) -> str:
        from google.adk.evaluation.simulation import llm_backed_user_simulator_prompts as adk

        start = self.case.start
        assert start is not None
        persona = _persona(start.persona)
        template = (
            adk._USER_SIMULATOR_INSTRUCTIONS_WITH_PERSONA_TEMPLATE
            if persona is not None
            else adk._DEFAULT_USER_SIMULATOR_INSTRUCTIONS_TEMPLATE
        )
        head = template.split("# Conversation Plan")[0]  # ADK's words, then ours
        params: dict[str, Any] = {
            "stop_signal": STOP_SIGNAL,
            "conversation_plan": start.plan,
            "conversation_history": history(turns, pending),
        }
        if persona is not None:
            params["persona"] = persona
        return _render(head + _PROTOCOL, params)

    async def next(self, turns: list[Turn], pending: list[PendingWrite]) -> Move:
        from google.adk.models.llm_request import LlmRequest
        from google.genai import types

        request = LlmRequest(
            model=getattr(self.model, "model", None),
            contents=[
                types.Content(role="user", parts=[types.Part(text=self.prompt(turns, pending))])
            ],
        )
        said, failed = "", None
        # read to the end, so a recording wrapper keeps the request whatever it returned
        async for response in self.model.generate_content_async(request):
            parts = response.content.parts if response.content else None
            said += "".join(p.text or "" for p in parts or [] if not p.thought)
            code = getattr(response.error_code, "name", response.error_code)
            if code and code != "MAX_TOKENS":
                failed = failed or str(code)
        if failed:  # a cut-off answer (MAX_TOKENS) is still the user's words
            raise UserFailed(f"the user's model failed ({failed})")
        move = self.read(said, pending)
        earlier = [" ".join(t.prompt.split()).casefold() for t in turns[-2:]]
        if (
            move.kind == "say"
            and len(earlier) == 2
            and set(earlier) == {" ".join(move.text.split()).casefold()}
        ):  # the protocol ends a conversation the agent failed twice; a loop is the user's
            raise UserFailed(
                f"the user's model sent the same message a third time ({move.text[:60]!r})"
            )
        return move

    def read(self, said: str, pending: list[PendingWrite]) -> Move:
        """The move the model's words make, read as a person would (`user_reply`): an end in
        any form stops, protocol labels never reach the agent, and a reply that is nothing but
        protocol -- or a second approval in a row that the tools refuse -- is no usable move."""
        from .user_reply import read_reply

        reply = read_reply(said)
        if reply.ends is not None:
            return Move("stop", why=f"the user's model ended the conversation ({reply.ends!r})")
        text = reply.words
        if not text:
            raise UserFailed(
                "the user's model returned nothing"
                if not said.strip()
                else f"the user's model returned only protocol text ({said.strip()[:60]!r})"
            )
        refused, self.refused = self.refused, False
        if pending and (m := _APPROVE.match(text)):
            rationale = m.group(1).strip() or text
            approver = self.case.scenario.approver if self.case.scenario else "oncall"
            try:
                decision = ApprovalDecision(
                    decision="approve", rationale=rationale, approver=approver
                )
            except ValueError:
                if refused:  # asked again, it approves again with nothing the tools accept
                    raise UserFailed(
                        "the user's model approved twice in a row without a rationale the "
                        f"tools accept ({text[:60]!r})"
                    ) from None
                self.refused = True
                return Move(
                    "say", text=text, why="an approval the tools would refuse, sent as words"
                )
            return Move("approve", decision=decision, why="the user's model approved")
        if pending and _DENY.match(text):
            return Move("deny", decision=ApprovalDecision(decision="deny"), why=text)
        return Move("say", text=text, why="the user's model")


def _render(template: str, params: dict[str, Any]) -> str:
    """`template` rendered as ADK renders its user-simulator prompt: a sandboxed jinja2, with
    its filter that renders a persona behaviour's own placeholders (`{{ stop_signal }}`).
    ADK's `get_llm_backed_user_simulator_prompt` would refuse a custom template that uses the
    filter, which its persona template needs."""
    from jinja2 import DictLoader, pass_context
    from jinja2.sandbox import SandboxedEnvironment

    env = SandboxedEnvironment(loader=DictLoader({"prompt": template}))

    @pass_context
    def render_string(context: Any, text: str) -> str:
        return env.from_string(text).render(context.get_all()) if text else ""

    env.filters["render_string_filter"] = render_string
    return env.get_template("prompt").render(params)


def _persona(value: Any) -> Any:
    """ADK's persona: a pre-built one by id, or one written out in the scenario."""
    if value is None:
        return None
    from google.adk.evaluation.conversation_scenarios import ConversationScenario

    return ConversationScenario(
        starting_prompt="-", conversation_plan="-", user_persona=value
    ).user_persona
