"""What the state store gives back: notes and audit rows as read, what a guarded write did, and a
snapshot of everything an attack or an eval could change. `store` returns and re-exports them;
kept apart from its SQL."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Note(BaseModel):
    model_config = ConfigDict(frozen=True)
    incident_id: str
    text: str
    session_id: str
    invocation_id: str
    created_at: str
    approval_id: str = ""
    provenance: str = ""


class AuditRow(BaseModel):
    model_config = ConfigDict(frozen=True)
    approver: str
    rationale: str
    session_id: str
    invocation_id: str
    action: str
    target: str
    before_status: str
    after_status: str
    at: str
    approval_id: str = ""
    provenance: str = ""
    """Where the write's arguments came from, as its approval request showed it (JSON)."""


class WriteOutcome(BaseModel):
    """What a guarded write did: applied, or why not (already done by this approval, or nothing
    to do: the target already has the status, for an action in `DONE_ONCE`)."""

    applied: bool
    before_status: str
    after_status: str
    duplicate: bool = False
    already_done: bool = False


class Snapshot(BaseModel):
    """Everything an attack or an eval could change, comparable with ==."""

    model_config = ConfigDict(frozen=True)
    services: dict[str, str]
    incidents: dict[str, str]
    notes: int
    audit: int
