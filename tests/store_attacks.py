"""What the state-store tests play as an attacker with write access to the store's file: a raw
sqlite3 connection to it (no pragma set, no code of the store used except to compute a hash the
way the store does), its triggers dropped for a while, a file store with a history of approved
writes and a note to tamper with, and the first break `verify` reports."""

from __future__ import annotations

import sqlite3
from contextlib import contextmanager

from ops_copilot.store.state import StateStore

APPROVAL = dict(approver="alice", rationale="config reverted", session_id="s1", invocation_id="e1")


def raw(path) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.row_factory = sqlite3.Row
    return conn


@contextmanager
def triggers_dropped(conn: sqlite3.Connection):
    """Drop every trigger, run the body, put the triggers back as they were."""
    saved = conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'trigger'").fetchall()
    for name, _ in saved:
        conn.execute(f"DROP TRIGGER {name}")
    yield
    for _, sql in saved:
        conn.execute(sql)


def history(seed, path) -> StateStore:
    """A file store with two approved writes and a note."""
    store = StateStore.create(seed, path)
    store.apply_write("restart_service", "inventory", **APPROVAL)
    store.add_note("INC-002", "pods OOMKilled after the deploy", "s1", "e2")
    store.apply_write("resolve_incident", "INC-002", **{**APPROVAL, "invocation_id": "e3"})
    return store


def first_break(store: StateStore) -> tuple[str, str, int | None, str | None]:
    verdict = store.verify()
    assert not verdict.ok and verdict.first is not None, verdict
    b = verdict.first
    return b.kind, b.table, b.row, b.target
