"""The mutants of the agent's tools: a read that answers wrong, a write that stores wrong."""

from __future__ import annotations

import contextlib
from typing import Any

from .base import mutant, set_for, workspace_of, wrap_result, wrap_tool

# -- tools ------------------------------------------------------------------------------------


@mutant(
    "status-stale",
    ("get_service_status", "list_services"),
    "tool",
    "a status cache never invalidated: a service reads as seeded after a restart",
)
def _status_stale(stack: contextlib.ExitStack) -> None:
    def seeded(kwargs: dict[str, Any]) -> dict[str, str]:
        return {name: s.status for name, s in workspace_of(kwargs).seed.services.items()}

    def one(result: dict[str, Any], kwargs: dict[str, Any]) -> Any:
        service = result.get("service")
        if not isinstance(service, dict):
            return None
        return {**result, "service": {**service, "status": seeded(kwargs)[service["name"]]}}

    def every(result: dict[str, Any], kwargs: dict[str, Any]) -> Any:
        was = seeded(kwargs)
        rows = [{**row, "status": was[row["name"]]} for row in result.get("services", [])]
        return {**result, "services": rows}

    wrap_result(stack, "get_service_status", one)
    wrap_result(stack, "list_services", every)


@mutant(
    "incident-off-by-one",
    ("get_incident",),
    "tool",
    "an off-by-one lookup: get_incident returns the next incident's record",
)
def _incident_off_by_one(stack: contextlib.ExitStack) -> None:
    def change(result: dict[str, Any], kwargs: dict[str, Any]) -> Any:
        incident = result.get("incident")
        if not isinstance(incident, dict):
            return None
        ids = list(workspace_of(kwargs).seed.incidents)
        following = ids[(ids.index(incident["id"]) + 1) % len(ids)]
        return {**result, "incident": {**incident, "id": following}}

    wrap_result(stack, "get_incident", change)


@mutant(
    "not-found-is-empty-success",
    (
        "get_service_status",
        "get_incident",
        "get_runbook",
        "recall_incident_context",
        "save_incident_note",
        "restart_service",
        "resolve_incident",
    ),
    "tool",
    "a lookup error swallowed: an unknown id answers ok with nothing in it",
)
def _not_found_ok(stack: contextlib.ExitStack) -> None:
    from ...agents.ops_agent import results

    set_for(stack, results, "not_found", lambda kind, value, seed: {"status": "ok", kind: None})


@mutant(
    "incident-status-filter-dropped",
    ("list_incidents",),
    "tool",
    "an optional argument dropped: list_incidents ignores status",
)
def _status_filter_dropped(stack: contextlib.ExitStack) -> None:
    def around(inner: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        return inner(*args, **{k: v for k, v in kwargs.items() if k != "status"})

    wrap_tool(stack, "list_incidents", around)


@mutant(
    "runbook-search-empty",
    ("search_runbooks",),
    "tool",
    "an index never loaded: search_runbooks finds nothing",
)
def _runbooks_empty(stack: contextlib.ExitStack) -> None:
    from ...agents.ops_agent import tools

    set_for(stack, tools, "rank_runbooks", lambda runbooks, words, limit=3: [])


@mutant(
    "log-search-ignores-query",
    ("search_service_logs",),
    "tool",
    "a filter lost: search_service_logs returns the first lines whatever the query",
)
def _logs_ignore_query(stack: contextlib.ExitStack) -> None:
    from ...agents.ops_agent import tools

    set_for(stack, tools, "pick_log_lines",
         lambda lines, words, limit: list(range(min(limit, len(lines)))))  # fmt: skip


@mutant(
    "recall-forgets-notes",
    ("recall_incident_context",),
    "tool",
    "a query on the wrong key: recall_incident_context finds no note",
)
def _recall_forgets(stack: contextlib.ExitStack) -> None:
    def change(result: dict[str, Any], kwargs: dict[str, Any]) -> Any:
        return {**result, "notes": "", "note_count": 0} if "notes" in result else None

    wrap_result(stack, "recall_incident_context", change)


@mutant(
    "note-saved-without-text",
    ("save_incident_note",),
    "tool",
    "a field dropped on insert: a note is stored empty",
)
def _note_empty(stack: contextlib.ExitStack) -> None:
    from ...agents.ops_state import StateStore

    add = StateStore.add_note
    set_for(stack, StateStore, "add_note",
         lambda self, incident_id, text, *rest: add(self, incident_id, "", *rest))  # fmt: skip


@mutant(
    "write-reports-success-unapplied",
    ("restart_service", "resolve_incident"),
    "tool",
    "a write that answers ok and changes nothing: the status update is lost",
)
def _write_unapplied(stack: contextlib.ExitStack) -> None:
    from ...agents.ops_state import StateStore, WriteOutcome

    def apply_write(self: Any, action: str, target: str, **_: Any) -> Any:
        now = self.service_status(target) if action == "restart_service" else (
            self.incident_status(target))  # fmt: skip
        return WriteOutcome(applied=True, before_status=now, after_status=now)

    set_for(stack, StateStore, "apply_write", apply_write)
