"""The desk's two tools, each declared beside its definition (`agentport.ToolRegistry`)."""

from __future__ import annotations

from typing import Any

from agentport import ToolRegistry

from .seed import normalise
from .state import STATE

TOOLS = ToolRegistry(entity_kinds={"ticket"})


def _not_found(ticket_id: str) -> dict[str, Any]:
    return {
        "status": "not_found",
        "entity": "ticket",
        "id": ticket_id,
        "message": f"There is no ticket {ticket_id}.",
    }


@TOOLS.declare(effect="read", entities={"ticket_id": "ticket"})
def get_ticket(ticket_id: str, tool_context: Any) -> dict[str, Any]:
    """Read one support ticket: its title and state (open or closed)."""
    ticket = STATE.of(tool_context.session.id).get(normalise("ticket", ticket_id))
    if ticket is None:
        return _not_found(ticket_id)
    return {"status": "ok", "id": normalise("ticket", ticket_id), **ticket}


@TOOLS.declare(effect="write", entities={"ticket_id": "ticket"}, confirm="always")
def close_ticket(ticket_id: str, tool_context: Any) -> dict[str, Any]:
    """Close one support ticket. A human approves it first, with a rationale."""
    confirmation = getattr(tool_context, "tool_confirmation", None)
    payload = getattr(confirmation, "payload", None) or {}
    if confirmation is None or confirmation.confirmed is not True:
        return {"status": "refused", "message": "Closing a ticket needs a human's approval."}
    if not isinstance(payload, dict) or not str(payload.get("rationale") or "").strip():
        return {"status": "refused", "message": "The approval must say why (a rationale)."}
    tickets = STATE.of(tool_context.session.id)
    key = normalise("ticket", ticket_id)
    if key not in tickets:
        return _not_found(ticket_id)
    tickets[key]["state"] = "closed"
    return {"status": "ok", "id": key, "closed_by": payload.get("approver", "")}
