"""Drive the real agent on the real ADK Runner, one session at a time, turn by turn.

An `AgentSession` owns one ADK session and the agent's state bound to it through the agent's
port (the ops copilot's: a workspace with a fresh in-memory state store by default). `send`
runs a user turn; `answer_confirmation` answers a pending `adk_request_confirmation` the way a
human would (approve with a payload, or reject). Each call returns a `SessionTurn`: the tool
calls, tool responses, confirmation pauses and final text, read off ADK's events. `play` drives
whole conversations through it for the runner and the red team.
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from google.adk.agents import BaseAgent
from google.adk.agents.run_config import RunConfig
from google.adk.events.event import Event
from google.adk.runners import InMemoryRunner
from google.genai import types

from ..agents import default_agent
from ..agents import port as agent_port
from ..core.calls import ToolCall
from ..core.model_call import CONFIRMATION, SERVER_KEY

if TYPE_CHECKING:
    from agentport import AgentPort

    from ..core.loops import LoopWatch


def server_of_event(event: Event) -> str | None:
    """The server that answered the model call this event holds; None when no server was named
    (a model that is not routed, or an event ADK made itself)."""
    found = (event.custom_metadata or {}).get(SERVER_KEY)
    return found if isinstance(found, str) else None


@dataclass(frozen=True)
class ToolResult:
    """A function response as ADK emitted it (it may arrive in a later run than its call)."""

    name: str
    response: dict[str, Any]
    id: str | None = None

    @classmethod
    def of(cls, fr: types.FunctionResponse) -> ToolResult:
        response = fr.response if isinstance(fr.response, dict) else {"result": fr.response}
        return cls(name=fr.name or "", response=response, id=fr.id)


@dataclass(frozen=True)
class PendingWrite:
    """A guarded write waiting for a human: the confirmation call and the write it holds."""

    confirmation_id: str
    call: ToolCall
    hint: str = ""
    """What the approval request tells the human (`toolConfirmation.hint`)."""


@dataclass
class SessionTurn:
    """What one `run_async` of the session produced."""

    invocation_id: str | None = None
    tool_calls: list[ToolCall] = field(default_factory=list)
    tool_results: list[ToolResult] = field(default_factory=list)
    pending: list[PendingWrite] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    prompt_tokens: int = 0
    output_tokens: int = 0
    events: list[Event] = field(default_factory=list)

    def absorb(self, event: Event) -> None:
        self.events.append(event)
        self.invocation_id = self.invocation_id or event.invocation_id
        usage = event.usage_metadata
        if usage is not None:
            self.prompt_tokens += usage.prompt_token_count or 0
            self.output_tokens += usage.candidates_token_count or 0
        for fc in event.get_function_calls():
            call = ToolCall(fc.name or "", dict(fc.args or {}), id=fc.id)
            self.tool_calls.append(call)
            # Only ADK's own pause is pending: it marks the call long-running. A model that emits
            # an adk_request_confirmation call itself gets "no such tool", not a human's attention.
            if fc.name == CONFIRMATION and fc.id in (event.long_running_tool_ids or set()):
                original = (fc.args or {}).get("originalFunctionCall") or {}
                hint = ((fc.args or {}).get("toolConfirmation") or {}).get("hint")
                self.pending.append(
                    PendingWrite(
                        confirmation_id=fc.id or "",
                        call=ToolCall(
                            original.get("name", ""),
                            dict(original.get("args") or {}),
                            id=original.get("id"),
                        ),
                        hint=hint if isinstance(hint, str) else "",
                    )
                )
        self.tool_results += map(ToolResult.of, event.get_function_responses())
        if event.author != "user" and event.content and event.content.parts and not event.partial:
            text = "".join(p.text or "" for p in event.content.parts if not p.thought).strip()
            if text:
                self.texts.append(text)


def _answered(calls: list[ToolCall], result: ToolResult) -> ToolCall | None:
    """The call `result` answers: the one with its id, else the last of its name."""
    same = [c for c in calls if c.name == result.name]
    by_id = [c for c in same if result.id and c.id == result.id]
    return (by_id or same or [None])[-1]


class AgentSession:
    """One ADK session over one workspace. Use as `async with AgentSession(agent) as s:`."""

    def __init__(
        self,
        agent: BaseAgent,
        workspace: Any = None,
        *,
        port: AgentPort | None = None,
        app_name: str | None = None,
        user_id: str = "oncall",
        session_id: str | None = None,
        state: dict[str, Any] | None = None,
        run_config: RunConfig | None = None,
        loops: Callable[[], LoopWatch] | None = None,
    ) -> None:
        self.agent = agent
        self.loops = loops
        """Makes the loop watch of each user turn (`loops.LoopWatch`); None: loops are not
        watched, and only ADK's model-call limit ends one."""
        self.watch: LoopWatch | None = None
        self.turn_runs: list[SessionTurn] = []
        """The runs of the user turn being played (its approval rounds are runs of their own)."""
        self.run_config = run_config
        self.port = port = port or agent_port(default_agent())
        """The agent's port: how its session state is bound and its App built."""
        if port.state is None and workspace is not None:
            raise ValueError(f"agent {port.name} declares no state to bind")
        if workspace is None and port.state is not None:
            workspace = port.state.fresh(port.load_seed(None))
        self.workspace = workspace
        self.app_name = app_name or port.name
        self.user_id = user_id
        self.session_id = session_id or f"s-{uuid.uuid4().hex}"
        self.state = dict(state or {})
        # Through an App with the confirmation guard, as `adk run`/`adk web` load the agent.
        self.runner = InMemoryRunner(app=port.build_app(agent, self.app_name))
        self.running: SessionTurn | None = None  # the latest run, complete or not

    async def __aenter__(self) -> AgentSession:
        await self.runner.session_service.create_session(
            app_name=self.app_name,
            user_id=self.user_id,
            session_id=self.session_id,
            state=self.state,
        )
        if self.port.state is not None:
            self.port.state.bind(self.session_id, self.workspace)
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self.port.state is not None:
            self.port.state.release(self.session_id)
        await self.runner.close()

    async def events(self) -> list[Event]:
        """Every event of the session so far, as ADK stored them."""
        session = await self.runner.session_service.get_session(
            app_name=self.app_name, user_id=self.user_id, session_id=self.session_id
        )
        return list(session.events) if session else []

    async def _run(self, message: types.Content) -> SessionTurn:
        """One run of the agent. A plain loop (`loops.LoopDetected`) ends it: ADK's run is
        closed there, and the turn so far is kept in `running`."""
        turn = self.running = SessionTurn()  # kept when the run fails midway, as evidence
        self.turn_runs.append(turn)
        events = self.runner.run_async(
            user_id=self.user_id,
            session_id=self.session_id,
            new_message=message,
            run_config=self.run_config,
        )
        async with contextlib.aclosing(events):
            async for event in events:
                turn.absorb(event)
                if self.watch is not None:
                    self._watch(turn, event)
        return turn

    def _watch(self, turn: SessionTurn, event: Event) -> None:
        """Each tool result of `event`, with the call it answers (made in any run of this user
        turn), to the turn's loop watch. A paused write's placeholder ("requires
        confirmation") is no result: the human's answer, in the next run, is."""
        assert self.watch is not None
        made = [c for run in self.turn_runs for c in run.tool_calls]
        waiting = {p.call.id for p in turn.pending if p.call.id}
        for result in map(ToolResult.of, event.get_function_responses()):
            if result.name == CONFIRMATION or result.id in waiting:
                continue
            call = _answered(made, result)
            if call is not None:
                self.watch.saw(call, result.response)

    async def send(self, text: str) -> SessionTurn:
        """Run one user turn to its end: a final answer or a confirmation pause. Each user
        turn is watched for loops afresh; its approval rounds are the same turn."""
        self.watch = self.loops() if self.loops is not None else None
        self.turn_runs = []
        return await self._run(types.Content(role="user", parts=[types.Part(text=text)]))

    async def answer_confirmation(
        self, pending: PendingWrite, *, confirmed: bool, payload: Any = None
    ) -> SessionTurn:
        """Answer a pause as the human: `confirmed` with a payload such as {"rationale": ...}."""
        return await self.answer_confirmations([pending], confirmed=confirmed, payload=payload)

    async def answer_confirmations(
        self, pending: list[PendingWrite], *, confirmed: bool, payload: Any = None
    ) -> SessionTurn:
        """Answer several pauses of one turn at once, the same way."""
        response: dict[str, Any] = {"confirmed": confirmed}
        if payload is not None:
            response["payload"] = payload
        parts = [
            types.Part(
                function_response=types.FunctionResponse(
                    id=p.confirmation_id, name=CONFIRMATION, response=dict(response)
                )
            )
            for p in pending
        ]
        return await self._run(types.Content(role="user", parts=parts))
