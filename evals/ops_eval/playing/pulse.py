"""Where a trial is while it plays, for the run's progress lines inside a trial (a trial can run
minutes between its start and its end line): its user turn, the agent's model calls so far,
whose step is running (the agent's, or the simulated user's reply), and how long it has run.
Also the tool that raised, if one did, so the trial's error can name the tool's side rather
than the model's (`sides`).

The player sets the turn and the step; two ADK callbacks on the agent built for the trial count
the model calls (`before_model_callback`, after the agent's own: a call one of them answers is
not made) and note a raising tool (`on_tool_error_callback`, which lets the error go on). A few
fields and two callbacks: nothing is kept in the record.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

Step = Literal["agent", "user"]


@dataclass
class Pulse:
    """One trial's progress as it plays (see the module's docstring)."""

    case_id: str
    repeat: int
    started: float = field(default_factory=time.perf_counter)
    turn: int = 0
    model_calls: int = 0
    step: Step = "agent"
    tool_raised: tuple[str, BaseException] | None = None
    """The latest tool that raised, and what: the trial's error is the tool's if this is it."""

    def where(self) -> tuple[int, int, Step]:
        """What a progress line would say besides the time: a line is due when it changed."""
        return self.turn, self.model_calls, self.step

    def line(self, now: float | None = None) -> str:
        """`service-status-inventory #1: turn 1, model call 3, 24 s` -- case ids, counts and
        seconds only: nothing the trial said (a minimal-data run prints it as it is)."""
        elapsed = (time.perf_counter() if now is None else now) - self.started
        doing = f"model call {self.model_calls}"
        if self.step == "user":
            doing = "the simulated user replying"
        return f"{self.case_id} #{self.repeat}: turn {self.turn}, {doing}, {elapsed:.0f} s"

    def watch(self, agent: Any) -> None:
        """Count the model calls of `agent` and its sub-agents, and note their raising tools."""
        for each in _agents(agent):
            for name, mine in (
                ("before_model_callback", self._call),
                ("on_tool_error_callback", self._raised),
            ):
                if hasattr(each, name):
                    setattr(each, name, [*_callbacks(getattr(each, name)), mine])

    def _call(self, callback_context: Any, llm_request: Any) -> None:
        self.model_calls += 1
        self.step = "agent"

    def _raised(self, tool: Any, args: Any, tool_context: Any, error: BaseException) -> None:
        if isinstance(error, Exception):  # a cancelled call is no tool's failure
            self.tool_raised = (str(getattr(tool, "name", tool)), error)


def _callbacks(own: Any) -> list[Any]:
    return [] if own is None else list(own) if isinstance(own, list) else [own]


def _agents(agent: Any) -> Iterator[Any]:
    yield agent
    for sub in getattr(agent, "sub_agents", None) or []:
        yield from _agents(sub)
