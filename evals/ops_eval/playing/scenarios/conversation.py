"""Play a conversation scenario: the scenario's starting prompt, then the user's moves -- words,
an approval or a denial of the write that waits, or the end -- until the user stops or a limit
ends it.

A turn is one message of the user and everything the agent did until the user's next message:
an approval request the user answers with a decision is part of the turn (as in a scripted
case), one the user answers with words is left pending and the words start the next turn.

Who ended the conversation is recorded (`trial.Conversation`), and whose failure a limit is:
- the user stopped (a rule, the model's stop signal, or no rule fits the agent's answer): no
  one's failure -- the goal scorers judge what the conversation achieved;
- the turn limit: the agent's -- the limit is what the agent has to reach the goal in;
- the time limit: the side whose step was running when the time ran out;
- a user that produced no usable move, or whose model raised: the user's, and the trial is an
  error (it says nothing about the agent) naming the simulated user as its side (`sides`).

The trial's pulse (`pulse`) follows the turn and whose step runs, for the run's progress lines.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Literal, TypeVar

from ...base.exits import describe
from ...core.model_call import LABEL
from ...core.trial import Approval, Conversation
from ..pulse import Pulse
from ..sides import TIMED_OUT, blamed
from ..turns import MAX_APPROVAL_ROUNDS, turn_of
from .users import Move, UserFailed

if TYPE_CHECKING:
    from ...core.evalset import Case
    from ...core.trial import TrialView
    from ..session import AgentSession, SessionTurn
    from .users import User

T = TypeVar("T")
Side = Literal["agent", "user"]


class TimeLimit(Exception):
    def __init__(self, side: Side) -> None:
        super().__init__(side)
        self.side = side


class Clock:
    """The scenario's time limit, and whose step runs against it (told to the trial's pulse).
    Anything the user's step raises -- its model unreachable, say -- is the user's failure."""

    def __init__(self, seconds: float, pulse: Pulse | None = None) -> None:
        self.deadline = time.perf_counter() + seconds
        self.seconds = seconds
        self.pulse = pulse

    async def step(self, side: Side, work: Awaitable[T]) -> T:
        left = self.deadline - time.perf_counter()
        if self.pulse is not None:
            self.pulse.step = side
        limit = asyncio.timeout(max(left, 0))
        try:
            if left <= 0:
                raise TimeoutError
            async with limit:
                return await work
        except Exception as exc:
            if asyncio.iscoroutine(work):
                work.close()
            if isinstance(exc, TimeoutError) and (left <= 0 or limit.expired()):
                raise TimeLimit(side) from None
            if side == "user" and not isinstance(exc, UserFailed):
                raise UserFailed(f"the user's model failed ({describe(exc)})") from exc
            raise
        finally:
            if self.pulse is not None:
                self.pulse.step = "agent"


async def converse(
    session: AgentSession,
    case: Case,
    user: User,
    view: TrialView,
    by_server: bool,
    pulse: Pulse | None = None,
) -> None:
    """Play `case`'s scenario with `user` into `view` (turns, and how it ended); `pulse`: where
    the trial is, for the run's progress lines."""
    scenario = case.scenario
    assert scenario is not None and case.start is not None
    clock = Clock(scenario.limits.seconds, pulse)
    conversation = view.conversation = Conversation(
        user=user.name, ended_by="error", reason="the conversation did not finish"
    )
    prompt = case.start.starting_prompt
    try:
        while True:
            move = await _turn(session, case, user, view, prompt, clock, by_server)
            if move.kind == "stop":
                conversation.ended_by, conversation.reason = "user", move.why
                return
            if len(view.turns) >= scenario.limits.turns:
                conversation.ended_by, conversation.blame = "turn-limit", "agent"
                conversation.reason = (
                    f"{scenario.limits.turns} user turns and the user had not stopped"
                )
                return
            prompt = move.text
    except TimeLimit as limit:
        conversation.ended_by, conversation.blame = "time-limit", limit.side
        conversation.reason = f"{clock.seconds:g} s ran out during the {limit.side}'s step"
        if limit.side == "user":  # the simulated user's failure says nothing of the agent
            view.error = blamed(
                "simulated user",
                f"{TIMED_OUT} (the scenario's limit of {clock.seconds:g} s ran out during its "
                "reply)",
            )
    except UserFailed as failed:
        conversation.ended_by, conversation.blame = "user-failed", "user"
        conversation.reason = str(failed)
        view.error = blamed("simulated user", str(failed))


async def _turn(
    session: AgentSession,
    case: Case,
    user: User,
    view: TrialView,
    prompt: str,
    clock: Clock,
    by_server: bool,
) -> Move:
    """One user message and the agent's runs until the user's next words or the end; the turn
    is kept in `view` however it ends (a failed run is evidence)."""
    index = len(view.turns) + 1
    LABEL.set(f"{case.eval_id}, turn {index}")
    if clock.pulse is not None:
        clock.pulse.turn = index
    started = time.perf_counter()
    parts: list[SessionTurn] = []
    answered: list[str] = []
    move: Move | None = None
    earlier = session.running  # a run of an earlier turn is never this turn's
    try:
        parts.append(await clock.step("agent", session.send(prompt)))
        while parts[-1].pending and len(answered) < MAX_APPROVAL_ROUNDS:
            so_far = [*view.turns, turn_of(index, prompt, parts, answered, by_server)]
            move = await clock.step("user", user.next(so_far, parts[-1].pending))
            if move.kind not in ("approve", "deny") or move.decision is None:
                break
            assert view.conversation is not None
            answered.append(move.kind)
            for pending in parts[-1].pending:
                view.conversation.approvals.append(
                    Approval(
                        turn=index,
                        tool=pending.call.name,
                        args=dict(pending.call.args),
                        decision=move.decision.decision,
                        rationale=move.decision.rationale,
                        approver=move.decision.approver,
                    )
                )
            payload = move.decision.payload()
            parts.append(
                await clock.step(
                    "agent",
                    session.answer_confirmations(
                        parts[-1].pending, confirmed=move.kind == "approve", payload=payload
                    ),
                )
            )
            move = None
    finally:
        running = session.running
        if (
            running is not None
            and running is not earlier
            and (not parts or parts[-1] is not running)
        ):
            parts.append(running)
        if parts:
            turn = turn_of(index, prompt, parts, answered, by_server)
            turn.seconds = time.perf_counter() - started
            view.turns.append(turn)
    if move is None:
        move = await clock.step("user", user.next(view.turns, parts[-1].pending))
    if move.kind in ("approve", "deny"):
        # a decision with nothing left to decide (or past the rounds allowed): the user is done
        move = Move("stop", why=f"the user answered {move.kind} with no request waiting")
    return move
