"""The second stage of a run: play conversations with the real agent on the real ADK Runner.

`play_turn` runs one user turn to its end -- a final answer, or an approval pause -- and answers
the pauses the way the given decision says (approve with its payload, or deny), up to
`MAX_APPROVAL_ROUNDS` rounds; with no decision a pause is a legitimate end of the turn. An eval
case's trial (`play_trial`) and a scripted session (`play_session`: a `Scripted` unit of fixed
prompts on a given agent and workspace, what the red team plays) both drive the agent through
it, with one model-call limit, `MAX_MODEL_CALLS`: an agent past it is looping. A trial also ends
as soon as its loop is plain (`loops.py`: the same call, the same result, a third time in one
turn). Only the engine (`running.trials`) calls these players.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..base.exits import describe
from ..core.calls import Turn
from ..core.model_call import LABEL
from ..core.trial import TrialView
from .pulse import Pulse
from .session import AgentSession, SessionTurn
from .sides import blamed
from .turns import MAX_APPROVAL_ROUNDS, turn_of

if TYPE_CHECKING:
    from ..core.evalset import ApprovalDecision, Case
    from ..core.plan import Plan

MAX_MODEL_CALLS = 40


def run_config() -> Any:
    """ADK's run settings for every played session: the model-call limit."""
    from google.adk.agents.run_config import RunConfig

    return RunConfig(max_llm_calls=MAX_MODEL_CALLS)


def routed(model: Any) -> bool:
    """Whether `model` names the server that answered each call (`models/router.py`); a
    recording wrapper (`--record`) passes its inner model's responses through unchanged."""
    return bool(getattr(getattr(model, "inner", model), "names_its_server", False))


async def play_turn(
    session: AgentSession,
    index: int,
    prompt: str,
    approval: ApprovalDecision | None,
    into: list[Turn] | None = None,
    by_server: bool = False,
) -> Turn:
    """Send one user prompt; answer each round of pauses as `approval` says, if it says. The
    turn is appended to `into` even when a run fails midway (a loop, a model error): what the
    agent did until then is the evidence. `by_server`: the model is routed, and the turn says
    which server answered each model call."""
    started = time.perf_counter()
    parts: list[SessionTurn] = []
    answered: list[str] = []
    try:
        parts.append(await session.send(prompt))
        while parts[-1].pending and approval and len(answered) < MAX_APPROVAL_ROUNDS:
            answered.append(approval.decision)  # given, even if the run it resumes fails
            parts.append(
                await session.answer_confirmations(
                    parts[-1].pending,
                    confirmed=approval.decision == "approve",
                    payload=approval.payload(),
                )
            )
    finally:
        if session.running is not None and (not parts or parts[-1] is not session.running):
            parts.append(session.running)  # the run that failed midway
        turn = turn_of(index, prompt, parts, answered, by_server)
        turn.seconds = time.perf_counter() - started
        if into is not None:
            into.append(turn)
    return turn


@dataclass(frozen=True)
class Scripted:
    """A unit of work besides an eval case's trial: one session of fixed user prompts on a built
    agent and a workspace the caller made (a planted seed copy, say), every pause answered as
    `approval` says (None: a pause ends the turn). `first` is the first prompt's index in the
    conversation; `stored`: read the session's state and events back when it ends."""

    agent: Any
    workspace: Any
    prompts: Sequence[str]
    approval: ApprovalDecision | None = None
    first: int = 1
    stored: bool = False


@dataclass
class Played:
    """A `Scripted` session as played: its turns (the last one as far as it got), the state and
    events ADK stored (when asked), and what ended it early, if anything did."""

    turns: list[Turn] = field(default_factory=list)
    state: dict[str, Any] = field(default_factory=dict)
    events: list[Any] = field(default_factory=list)
    failure: Exception | None = None


async def play_session(script: Scripted) -> Played:
    """Every prompt of `script` in one session, in order. A model error, a loop past the
    model-call limit or any other failure ends it, kept in `failure`; what was played until then
    is kept too (it is the evidence)."""
    played = Played()
    try:
        session = AgentSession(script.agent, script.workspace, run_config=run_config())
        async with session:
            for index, prompt in enumerate(script.prompts, start=script.first):
                await play_turn(session, index, prompt, script.approval, played.turns)
            if script.stored:
                stored = await session.runner.session_service.get_session(
                    app_name=session.app_name,
                    user_id=session.user_id,
                    session_id=session.session_id,
                )
                if stored:
                    played.state, played.events = dict(stored.state), list(stored.events)
    except Exception as exc:  # the caller judges what ended it
        played.failure = exc
    return played


async def _play(plan: Plan, view: TrialView, model: Any, users: str, pulse: Pulse) -> None:
    from ..agents import AGENTS
    from .faults import attach

    case = view.case
    meta = case.meta
    assert meta is not None
    port = AGENTS[meta.agent]
    states = port.state
    workspace = states.fresh(plan.seed_for(meta.agent)) if states is not None else None
    view.before = states.snapshot(workspace) if states is not None else None
    from ..core.loops import LoopWatch
    from ..core.matching import canonical

    agent = port.build_agent(model)
    pulse.watch(agent)
    specs = port.tools()
    faults = plan.contracts(case).faults  # injected at the tool boundary, never in the seed
    injector = attach(agent, faults, specs) if faults else None
    session = AgentSession(
        agent,
        workspace,
        port=port,
        app_name=case.session.app_name or meta.agent,
        user_id=case.session.user_id or "oncall",
        state=case.session.state,
        run_config=run_config(),
        loops=lambda: LoopWatch(lambda call: canonical(call, specs)),
    )
    try:
        async with session:
            if case.scenario is not None:
                from .scenarios import converse

                user = user_for(case, model, users)
                await converse(session, case, user, view, routed(model), pulse)
                view.events = await session.events()
                return
            for spec in case.turns:
                LABEL.set(f"{case.eval_id}, turn {spec.index}")
                pulse.turn = spec.index
                try:
                    await play_turn(
                        session,
                        spec.index,
                        spec.prompt,
                        meta.approval,
                        view.turns,
                        by_server=routed(model),
                    )
                finally:
                    view.turns[-1].reference = spec.reference
                    view.turns[-1].expected = list(spec.calls)
                    if injector is not None:
                        view.turns[-1].faults = injector.take()
            view.events = await session.events()
    finally:  # the end state, however the trial ended
        if states is not None:
            view.after = states.snapshot(workspace)
            view.audit = list(getattr(states, "audit", lambda _: [])(workspace))
            view.notes = list(getattr(states, "notes", lambda _: [])(workspace))


def user_for(case: Case, model: Any, users: str) -> Any:
    """The user of a scenario: `scripted` (its rules) or `model` (the agent's model plays it)."""
    from ..agents import AGENTS
    from .scenarios import ModelUser, ScriptedUser

    assert case.scenario is not None and case.meta is not None
    if users == "model":
        return ModelUser(case, model)
    return ScriptedUser(case.scenario, AGENTS[case.meta.agent].tools())


def _outgrew_context(exc: BaseException) -> bool:
    """The model server refused the conversation as longer than its context window: the agent's
    own conversation grew too long (LiteLLM's ContextWindowExceededError), not an outage."""
    import sys

    litellm = sys.modules.get("litellm")
    kind = getattr(getattr(litellm, "exceptions", None), "ContextWindowExceededError", None)
    return kind is not None and isinstance(exc, kind)


def _failure(exc: BaseException, pulse: Pulse) -> str:
    """An exception that ended a trial, as its error naming its side (`sides`): a tool's, when
    the tool that raised is what ended it; else the model's (an error response, a malformed
    call, a replay miss)."""
    if pulse.tool_raised is not None:
        tool, raised = pulse.tool_raised
        seen, cause = set(), exc
        while cause is not None and id(cause) not in seen:
            if cause is raised:
                return blamed("tool fault", f"{tool} raised {describe(raised)}")
            seen.add(id(cause))
            cause = cause.__cause__ or cause.__context__
    return blamed("model", describe(exc))


async def play_trial(
    plan: Plan,
    case: Case,
    repeat: int,
    model: Any,
    timeout_s: float,
    users: str = "scripted",
    pulse: Pulse | None = None,
) -> TrialView:
    """Every turn of `case` in one fresh session and state store. A model error, a raising
    tool, a timeout or a malformed call ends the trial with `error`, naming its side (`sides`);
    a plain loop, running past the model-call limit or out of the model's context window ends
    it with `looped` (the agent's own failure). `pulse`: where the trial is, as it plays, for
    the run's progress lines."""
    from google.adk.agents.invocation_context import LlmCallsLimitExceededError

    from ..core.loops import LoopDetected

    view = TrialView(case=case, repeat=repeat)
    pulse = pulse or Pulse(case.eval_id, repeat)
    started = time.perf_counter()
    limit = asyncio.timeout(timeout_s)
    try:
        async with limit:
            await _play(plan, view, model, users, pulse)
    except LoopDetected as exc:
        view.looped = f"turn {view.turns[-1].index}: {exc}" if view.turns else str(exc)
    except LlmCallsLimitExceededError:
        view.looped = f"the agent looped past {MAX_MODEL_CALLS} model calls"
    except TimeoutError as exc:
        if limit.expired():
            during = "the simulated user's reply" if pulse.step == "user" else "the agent's step"
            view.error = blamed(
                "timeout", f"trial exceeded {timeout_s:g} s, in turn {pulse.turn} during {during}"
            )
        else:  # a TimeoutError of the model's own (its client gave up), not the trial's limit
            view.error = _failure(exc, pulse)
    except Exception as exc:  # model errors, replay misses, malformed calls: an error trial
        if _outgrew_context(exc):
            view.looped = f"the conversation outgrew the model's context window ({describe(exc)})"
        else:
            view.error = _failure(exc, pulse)
    view.seconds = time.perf_counter() - started
    return view
