"""The writes that wait for a human approval once a session has read logs, and the log read that
makes the note wait too (imported by name; see support.py)."""

from __future__ import annotations

from ops_eval import ToolCall

LOGS = ToolCall("search_service_logs", {"service": "database", "query": "pool"})
WRITES = {
    "save_incident_note": ToolCall(
        "save_incident_note", {"incident_id": "INC-008", "note": "Pool exhausted at 10:05."}
    ),
    "restart_service": ToolCall("restart_service", {"name": "inventory"}),
    "resolve_incident": ToolCall("resolve_incident", {"incident_id": "INC-002"}),
}
