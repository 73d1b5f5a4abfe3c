"""Write policy: when a note needs approval, what a write call gets before anyone is asked, and
how an approved write runs.

`precheck_write` answers a write that cannot run whatever a human says -- unknown target, writes
switched off, nothing to do -- so nobody is asked to approve it; it runs again inside the tool
when an approval arrives. `guarded_write` then applies an approved restart or resolution, with
its audit row, at most once per approval. What the state depends on (nothing to do, approval
used) the store decides again inside the write's own transaction: a session sharing the store
file may have written between the check and the write. A write the store refuses (changed
outside it: `audit verify` says how) is a refusal the model sees, not a crash.
"""

from __future__ import annotations

from typing import Any

from ops_copilot.guards.provenance import Provenance, session_events, trace
from ops_copilot.seed.loading import normalise
from ops_copilot.store.schema import EFFECTS
from ops_copilot.store.state import StoreError
from ops_copilot.store.workspace import Workspace, call_ids, workspace_for
from ops_copilot.tools.approval import NOTHING_CHANGED, Refusal, read_approval
from ops_copilot.tools.registry import TOOLS
from ops_copilot.tools.results import Result, resolve


def read_untrusted_text(tool_context: Any) -> bool:
    """Whether this session already returned untrusted text to the model.

    Decides when a note (a write that otherwise needs no approval) must wait for a human: once a
    log line, runbook body, incident text or earlier note has entered the model's context -- in
    this turn or any earlier one, since the context carries over -- a write could be the work of
    an instruction planted there. Read from the session's events, so ADK's re-check when the
    approval arrives gives the same answer.
    """
    session = getattr(tool_context, "session", None)
    if session is None:  # no session, no context that text could have entered
        return False
    names = {name for name, spec in TOOLS.items() if spec.untrusted}
    return any(
        fr.name in names for event in session.events for fr in event.get_function_responses()
    )


def write_provenance(tool_name: str, args: dict[str, Any], tool_context: Any) -> Provenance:
    """Where this write call's arguments came from, judged on the session up to the model's
    call -- so the trace the approval request shows and the one the audit row keeps, computed
    again when the approval arrives, are the same."""
    events = session_events(tool_context)
    call_id = getattr(tool_context, "function_call_id", None)
    for i, event in enumerate(events):
        if any(fc.id == call_id for fc in event.get_function_calls()):
            events = events[: i + 1]
            break
    return trace(tool_name, args, events)


def precheck_write(tool_name: str, args: dict[str, Any], ws: Workspace) -> Result | None:
    """The result a write call gets without asking anyone, or None when it may proceed (to a
    human, when it needs approval)."""
    ((arg, kind),) = TOOLS[tool_name].entities.items()
    key = resolve(kind, arg, args.get(arg), ws.seed)
    if isinstance(key, dict):
        return key
    if ws.writes_refused():
        return Refusal(
            reason="writes_disabled",
            message="Writes are disabled (OPS_WRITES_DISABLED). " + NOTHING_CHANGED,
        ).result(action=tool_name, target=key)
    try:
        return nothing_to_do(tool_name, key) if ws.store.already_done(tool_name, key) else None
    except StoreError as exc:
        return store_refused(tool_name, key, exc)


def nothing_to_do(tool_name: str, key: str) -> Result:
    """What a write gets when its target already has the status it sets (`DONE_ONCE`): a
    resolved incident is not resolved again."""
    status = EFFECTS[tool_name][2]
    return Refusal(
        reason=f"already_{status}", message=f"{key} is already {status}. " + NOTHING_CHANGED
    ).result(action=tool_name, target=key)


def store_refused(tool_name: str, key: str, exc: StoreError) -> Result:
    """What a write gets when the state store refuses it: the store was changed outside it, and
    the message says where, that nothing was written, and to run `audit verify`."""
    return Refusal(reason="store_refused", message=str(exc)).result(action=tool_name, target=key)


def already_applied(tool_name: str, key: str) -> Result:
    """What a write gets when its approval (or its invocation) already made it."""
    return Refusal(
        reason="already_applied",
        message=f"{tool_name} on {key} was already applied under this approval or in this "
        "invocation; it is not repeated. " + NOTHING_CHANGED,
    ).result(action=tool_name, target=key)


def guarded_write(tool_name: str, args: dict[str, Any], tool_context: Any) -> Result:
    """Apply a restart or resolution that a human approved with a rationale, or say why not."""
    ws = workspace_for(tool_context)
    early = precheck_write(tool_name, args, ws)
    if early is not None:
        return early
    ((arg, kind),) = TOOLS[tool_name].entities.items()
    key = normalise(kind, args[arg])
    approval = read_approval(tool_context)
    if isinstance(approval, Refusal):
        return approval.result(action=tool_name, target=key)
    session_id, invocation_id, _ = call_ids(tool_context)
    try:
        outcome = ws.store.apply_write(
            tool_name,  # type: ignore[arg-type]
            key,
            approver=approval.approver,
            rationale=approval.rationale,
            session_id=session_id,
            invocation_id=invocation_id,
            approval_id=approval.request_id,
            provenance=write_provenance(tool_name, args, tool_context).as_json(),
        )
    except StoreError as exc:
        return store_refused(tool_name, key, exc)
    if outcome.duplicate:
        return already_applied(tool_name, key)
    if outcome.already_done:
        return nothing_to_do(tool_name, key)
    return {
        "status": "ok",
        "applied": True,
        "action": tool_name,
        "target": key,
        "before": outcome.before_status,
        "after": outcome.after_status,
        "approved_by": approval.approver,
        "rationale": approval.rationale,
    }
