"""Tool faults: a case's `contracts.faults` made real at the tool boundary, never in the seed.

A case that declares `{"tool": "get_service_status", "kind": "error", "when": "first"}` is played
with an ADK `before_tool_callback` on the agent the harness builds for the trial: the matching
call returns what a failing backend gives -- an `error` result, a `timeout` result (at once: a
real timeout would only slow the suite), or the tool's own `empty` result -- and the tool's code
does not run. `first` fails the first matching call only, so a retry succeeds; `every` fails them
all; `args` (compared as the tools normalise them) narrows which calls match.

A write that needs a human approval is faulted only once the human approved it: the pause comes
first, as it would, and then the write fails without its code running -- no status change, no
audit row. The model sees only the realistic result; the trial records each injection
(`Turn.faults`), so a report can say what was injected, and `FaultCounter` gives the end-state
scorer the same decision for the case's expected calls.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from agentport import ToolSpec

from ..agents.ops_world import NOTHING_CHANGED
from ..core.calls import InjectedFault
from ..core.contracts import Fault
from ..core.matching import same_value

TIMEOUT_SECONDS = 30  # what the timeout result says the backend took; nothing waits for it

# The backend each tool reads, as an error message names it.
BACKENDS = {
    "list_services": "status",
    "get_service_status": "status",
    "list_incidents": "incident",
    "get_incident": "incident",
    "search_runbooks": "runbook store",
    "get_runbook": "runbook store",
    "search_service_logs": "log",
    "recall_incident_context": "session memory",
    "list_skills": "skill",
    "load_skill": "skill",
    "save_incident_note": "session memory",
    "restart_service": "orchestration",
    "resolve_incident": "incident",
}


def _found_nothing(kind: str, arg: str) -> Any:
    def result(args: dict[str, Any]) -> dict[str, Any]:
        value = str(args.get(arg, "")).strip()
        return {
            "status": "not_found",
            "entity": kind,
            "id": value,
            "exists": False,
            "message": f"There is no {kind} {value!r} in the ops database. It does not exist: "
            f"tell the user so, and do not guess, invent or substitute another {kind}.",
            f"known_{kind}s": [],
        }

    return result


# What each read tool answers when its backend holds nothing (the shapes of
# `ops_copilot.tools.reads`).
EMPTY: dict[str, Any] = {
    "list_services": lambda a: {"status": "ok", "services": []},
    "list_incidents": lambda a: {"status": "ok", "count": 0, "incidents": []},
    "search_runbooks": lambda a: {
        "status": "ok",
        "query": a.get("query"),
        "matches": [],
        "message": "No runbook matches these words.",
    },
    "search_service_logs": lambda a: {
        "status": "ok",
        "service": str(a.get("service", "")).strip().lower(),
        "query": a.get("query"),
        "match_count": 0,
        "lines": "",
    },
    "recall_incident_context": lambda a: {
        "status": "ok",
        "incident_id": str(a.get("incident_id", "")).strip().upper(),
        "note_count": 0,
        "notes": "",
        "approved_actions": [],
    },
    "list_skills": lambda a: {"status": "ok", "skills": []},
    "get_service_status": _found_nothing("service", "name"),
    "get_incident": _found_nothing("incident", "incident_id"),
    "get_runbook": _found_nothing("runbook", "slug"),
    "load_skill": _found_nothing("skill", "name"),
}


def fault_result(fault: Fault, spec: ToolSpec | None, args: dict[str, Any]) -> dict[str, Any]:
    """What the model gets for a faulted call: the result a failing backend gives."""
    if fault.kind == "empty":
        return EMPTY[fault.tool](args)
    backend = BACKENDS.get(fault.tool, fault.tool)
    if fault.kind == "timeout":
        reason = "timeout"
        what = f"{fault.tool} timed out after {TIMEOUT_SECONDS} s waiting for the {backend} "
        what += "backend."
    else:
        reason = "backend_error"
        what = f"{fault.tool} failed: the {backend} backend returned an error (503 unavailable)."
    tail = (
        f" The write was not applied. {NOTHING_CHANGED}"
        if spec is not None and spec.is_write
        else " No data was returned: do not guess it."
    )
    return {"status": "error", "reason": reason, "message": what + tail}


def matches(fault: Fault, spec: ToolSpec | None, name: str, args: Mapping[str, Any]) -> bool:
    """Whether a call of `name` with `args` is one `fault` aims at, the call read as its tool
    takes it (an argument left out is its declared default)."""
    if fault.tool != name:
        return False
    entities = spec.entities if spec is not None else {}
    taken = spec.as_taken(args) if spec is not None else args
    return all(
        arg in taken and same_value(entities.get(arg), want, taken[arg])
        for arg, want in fault.args.items()
    )


class FaultCounter:
    """Which calls fail, in call order: one decision for the played trial and the gold store."""

    def __init__(self, faults: Sequence[Fault], specs: Mapping[str, ToolSpec]) -> None:
        self.faults = list(faults)
        self.specs = specs
        self._seen = [0] * len(self.faults)

    def fails(self, name: str, args: Mapping[str, Any]) -> Fault | None:
        """The fault this call meets (counting it), or None: the call runs."""
        spec = self.specs.get(name)
        for i, fault in enumerate(self.faults):
            if not matches(fault, spec, name, args):
                continue
            self._seen[i] += 1
            if fault.when == "every" or self._seen[i] == 1:
                return fault
        return None


def _awaits_human(spec: ToolSpec, tool_context: Any) -> bool:
    """A write that ADK will pause (or has had rejected): the fault waits for an approval."""
    from ..agents.ops_state import read_untrusted_text

    if spec.confirm == "never":
        return False
    if spec.confirm == "after_untrusted" and not read_untrusted_text(tool_context):
        return False
    confirmation = getattr(tool_context, "tool_confirmation", None)
    return confirmation is None or confirmation.confirmed is not True


class FaultInjector:
    """The `before_tool_callback` that injects a trial's faults, and what it injected."""

    def __init__(self, faults: Sequence[Fault], specs: Mapping[str, ToolSpec]) -> None:
        self.counter = FaultCounter(faults, specs)
        self.specs = specs
        self.injected: list[InjectedFault] = []

    def __call__(self, tool: Any, args: dict[str, Any], tool_context: Any) -> dict | None:
        spec = self.specs.get(tool.name)
        if spec is not None and spec.is_write and _awaits_human(spec, tool_context):
            return None  # the pause (or the rejection) first, as without a fault
        fault = self.counter.fails(tool.name, args)
        if fault is None:
            return None
        self.injected.append(
            InjectedFault(tool=tool.name, kind=fault.kind, when=fault.when, args=dict(args))
        )
        return fault_result(fault, spec, args)

    def take(self) -> list[InjectedFault]:
        """The faults injected since the last take (one user turn's)."""
        taken, self.injected = self.injected, []
        return taken


def attach(agent: Any, faults: Sequence[Fault], specs: Mapping[str, ToolSpec]) -> FaultInjector:
    """Add an injector after the agent's own before-tool callbacks (a write the agent refuses
    before anyone is asked stays refused), and return it."""
    injector = FaultInjector(faults, specs)
    append_callback(agent, injector)
    return injector


def append_callback(agent: Any, callback: Any) -> None:
    """Run `callback` after the agent's own before-tool callbacks."""
    own = agent.before_tool_callback
    own = [] if own is None else list(own) if isinstance(own, list) else [own]
    agent.before_tool_callback = [*own, callback]


def fault_note(turns: Sequence[Any]) -> str:
    """'fault injected: get_service_status error (first)', one per injection, for a detail."""
    return "; ".join(dict.fromkeys(f.show() for t in turns for f in t.faults))


class FaultsByPrompt:
    """For `adk eval`, which runs a set's cases without saying which case a session plays: the
    faults of the case whose first prompt opened the session, one injector per session. The
    replay agent uses it so a recording made with faults injected replays under `adk eval`."""

    def __init__(self, cases: Sequence[Any], specs: Mapping[str, ToolSpec]) -> None:
        self.specs = specs
        self.by_prompt = {
            c.turns[0].prompt.strip(): c.meta.contracts.faults
            for c in cases
            if c.meta is not None and c.turns and c.meta.contracts.faults
        }
        self.sessions: dict[str, FaultInjector] = {}

    def __call__(self, tool: Any, args: dict[str, Any], tool_context: Any) -> dict | None:
        session = tool_context.session
        first = next((e for e in session.events if e.author == "user" and e.content), None)
        text = "".join(p.text or "" for p in first.content.parts or []) if first else ""
        faults = self.by_prompt.get(text.strip())
        if not faults:
            return None
        injector = self.sessions.setdefault(session.id, FaultInjector(faults, self.specs))
        return injector(tool, args, tool_context)
