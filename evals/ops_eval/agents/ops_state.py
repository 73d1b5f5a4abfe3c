"""The ops copilot's state store and what writes to it, for the harness parts built on it (the
red team's checks, `audit` commands, the ops copilot's tool mutants). Light: no ADK import."""

from ops_copilot.store.audit_chain import parse_anchor
from ops_copilot.store.state import AuditRow, Note, Snapshot, StateStore, StoreError, WriteOutcome
from ops_copilot.store.workspace import Workspace, workspace_for
from ops_copilot.store.writes import precheck_write, read_untrusted_text

__all__ = [
    "AuditRow", "Note", "Snapshot", "StateStore", "StoreError", "Workspace", "WriteOutcome",
    "parse_anchor", "precheck_write", "read_untrusted_text", "workspace_for",
]  # fmt: skip
