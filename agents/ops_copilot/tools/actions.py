"""The ops copilot's writes -- a note, a restart, a resolve -- each declared with when it needs a
human approval; the approval itself is read and checked by `approval` and `writes`, and every
write is recorded in the state store's audit trail. Registered after the read tools: this
module imports `tools` before it declares anything, so the agent's tool list is the reads, then
the writes, whichever module is imported first.
"""

from __future__ import annotations

from google.adk.tools.tool_context import ToolContext

from ops_copilot.seed.loading import normalise
from ops_copilot.store.state import StoreError
from ops_copilot.store.workspace import call_ids, workspace_for
from ops_copilot.store.writes import (
    already_applied,
    guarded_write,
    precheck_write,
    read_untrusted_text,
    store_refused,
    write_provenance,
)
from ops_copilot.tools import reads as tools  # noqa: F401  (the reads register first)
from ops_copilot.tools.approval import Refusal, read_approval
from ops_copilot.tools.registry import declare
from ops_copilot.tools.results import Result, invalid

MAX_NOTE_CHARS = 2000


def note_problem(note: object) -> str | None:
    """Why `save_incident_note` refuses this note text, or None; the eval-set validator applies
    the same rule to the notes cases expect."""
    if not isinstance(note, str) or not note.strip():
        return "must be non-empty text"
    if len(note) > MAX_NOTE_CHARS:
        return f"is longer than {MAX_NOTE_CHARS} characters"
    return None


@declare(effect="write", entities={"incident_id": "incident"}, confirm="after_untrusted")
def save_incident_note(incident_id: str, note: str, tool_context: ToolContext) -> Result:
    """Save a note on an incident, to recall later in this session. Once the session has read
    logs, runbooks, incident text or notes, a note waits for a human approval.

    Args:
        incident_id: The incident id, for example "INC-002".
        note: The note text (at most 2000 characters).
    """
    ws = workspace_for(tool_context)
    early = precheck_write("save_incident_note", {"incident_id": incident_id}, ws)
    if early is not None:
        return early
    key = normalise("incident", incident_id)
    problem = note_problem(note)
    if problem is not None:
        return invalid("note", f"note {problem}.")
    approval_id = provenance = ""
    if read_untrusted_text(tool_context):
        approval = read_approval(tool_context)
        if isinstance(approval, Refusal):
            return approval.result(action="save_incident_note", target=key)
        approval_id = approval.request_id
        args = {"incident_id": incident_id, "note": note}
        provenance = write_provenance("save_incident_note", args, tool_context).as_json()
    session_id, invocation_id, _ = call_ids(tool_context)
    try:
        saved = ws.store.add_note(
            key, note.strip(), session_id, invocation_id, approval_id, provenance
        )
    except StoreError as exc:
        return store_refused("save_incident_note", key, exc)
    if saved is None:
        return already_applied("save_incident_note", key)
    return {"status": "ok", "incident_id": key, "saved_at": saved.created_at}


@declare(effect="write", entities={"name": "service"}, confirm="always")
def restart_service(name: str, tool_context: ToolContext) -> Result:
    """Restart a service. Pauses for a human approval with a rationale; runs only if approved.

    Args:
        name: The service to restart, for example "inventory".
    """
    return guarded_write("restart_service", {"name": name}, tool_context)


@declare(effect="write", entities={"incident_id": "incident"}, confirm="always")
def resolve_incident(incident_id: str, tool_context: ToolContext) -> Result:
    """Mark an incident resolved. Pauses for a human approval with a rationale; runs if approved.

    Args:
        incident_id: The incident to resolve, for example "INC-002".
    """
    return guarded_write("resolve_incident", {"incident_id": incident_id}, tool_context)
