"""The per-session state store: what the agent can change, in SQLite, created from the seed.

Service and incident statuses start as the seed says; notes and the audit log start empty. A
guarded write changes state and appends its audit row in one transaction, and the audit row is
unique per (invocation, action, target), so a replayed approval cannot act twice. Triggers make
the audit log append-only even for code that bypasses this module.
"""

from __future__ import annotations

import sqlite3
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from .seed import Seed

WriteAction = Literal["restart_service", "resolve_incident"]

_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE services (
    name TEXT PRIMARY KEY, status TEXT NOT NULL, updated_at TEXT
);
CREATE TABLE incidents (
    id TEXT PRIMARY KEY, status TEXT NOT NULL, updated_at TEXT
);
CREATE TABLE notes (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    incident_id TEXT NOT NULL REFERENCES incidents(id),
    text TEXT NOT NULL,
    session_id TEXT NOT NULL,
    invocation_id TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE TABLE audit_log (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    approver TEXT NOT NULL,
    rationale TEXT NOT NULL CHECK (length(trim(rationale)) > 0),
    session_id TEXT NOT NULL,
    invocation_id TEXT NOT NULL,
    action TEXT NOT NULL,
    target TEXT NOT NULL,
    before_status TEXT NOT NULL,
    after_status TEXT NOT NULL,
    at TEXT NOT NULL,
    UNIQUE (invocation_id, action, target)
);
CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;
CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;
"""

# What each guarded action does to its target: (table, key column, new status).
EFFECTS: dict[str, tuple[str, str, str]] = {
    "restart_service": ("services", "name", "operational"),
    "resolve_incident": ("incidents", "id", "resolved"),
}


class StoreError(RuntimeError):
    """The state file cannot be used (other seed, not a store, unreadable)."""


class Note(BaseModel):
    model_config = ConfigDict(frozen=True)
    incident_id: str
    text: str
    session_id: str
    invocation_id: str
    created_at: str


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


class WriteOutcome(BaseModel):
    """What a guarded write did: applied, or why not (already done by this approval)."""

    applied: bool
    before_status: str
    after_status: str
    duplicate: bool = False


class Snapshot(BaseModel):
    """Everything an attack or an eval could change, comparable with ==."""

    model_config = ConfigDict(frozen=True)
    services: dict[str, str]
    incidents: dict[str, str]
    notes: int
    audit: int


def _tick(clock: str) -> str:
    """The scenario clock one second later (ISO 8601, UTC, 'Z')."""
    moment = datetime.strptime(clock, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    return (moment + timedelta(seconds=1)).strftime("%Y-%m-%dT%H:%M:%SZ")


class StateStore:
    """One SQLite database. `:memory:` for a session or eval case, a file for interactive use."""

    def __init__(self, conn: sqlite3.Connection, seed_digest: str, path: str) -> None:
        self._conn = conn
        self._lock = threading.Lock()
        self.seed_digest = seed_digest
        self.path = path

    @classmethod
    def create(cls, seed: Seed, path: str | Path = ":memory:") -> StateStore:
        """A store at `path` holding the seed's initial state; reuses a file made from this seed."""
        path = str(path)
        if path != ":memory:" and Path(path).exists():
            return cls._open_existing(seed, path)
        try:
            conn = cls._connect(":memory:")
            conn.executescript(_SCHEMA)
            conn.execute("BEGIN")
            conn.execute("INSERT INTO meta VALUES ('seed_digest', ?)", (seed.digest,))
            conn.execute("INSERT INTO meta VALUES ('clock', ?)", (seed.world.now,))
            conn.executemany(
                "INSERT INTO services (name, status) VALUES (?, ?)",
                [(s.name, s.status) for s in seed.services.values()],
            )
            conn.executemany(
                "INSERT INTO incidents (id, status) VALUES (?, ?)",
                [(i.id, i.status) for i in seed.incidents.values()],
            )
            conn.execute("COMMIT")
            if path == ":memory:":
                return cls(conn, seed.digest, path)
            # Built in memory, copied to a temp file, renamed: a crash never leaves half a store.
            tmp = Path(path).with_name(Path(path).name + ".tmp")
            target = sqlite3.connect(tmp)
            conn.backup(target)
            target.close()
            conn.close()
            tmp.replace(path)
        except (sqlite3.Error, OSError) as exc:
            raise StoreError(f"{path}: cannot create the state store ({exc})") from None
        return cls._open_existing(seed, path)

    @staticmethod
    def _connect(path: str) -> sqlite3.Connection:
        conn = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        conn.execute("PRAGMA foreign_keys = ON")
        return conn

    @classmethod
    def _open_existing(cls, seed: Seed, path: str) -> StateStore:
        try:
            conn = cls._connect(path)
            row = conn.execute("SELECT value FROM meta WHERE key = 'seed_digest'").fetchone()
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{path}: not a state store ({exc})") from None
        if row is None or row[0] != seed.digest:
            conn.close()
            raise StoreError(f"{path}: state file was made from another seed; delete it to reset")
        return cls(conn, seed.digest, path)

    def close(self) -> None:
        self._conn.close()

    # -- reads -------------------------------------------------------------------------------

    def _rows(self, sql: str, args: tuple = ()) -> list[tuple]:
        with self._lock:
            return self._conn.execute(sql, args).fetchall()

    def service_status(self, name: str) -> str:
        return self._rows("SELECT status FROM services WHERE name = ?", (name,))[0][0]

    def incident_status(self, incident_id: str) -> str:
        return self._rows("SELECT status FROM incidents WHERE id = ?", (incident_id,))[0][0]

    def service_statuses(self) -> dict[str, str]:
        return dict(self._rows("SELECT name, status FROM services ORDER BY name"))

    def incident_statuses(self) -> dict[str, str]:
        return dict(self._rows("SELECT id, status FROM incidents ORDER BY id"))

    def notes(self, incident_id: str | None = None) -> list[Note]:
        cols = "incident_id, text, session_id, invocation_id, created_at"
        rows = (
            self._rows(
                f"SELECT {cols} FROM notes WHERE incident_id = ? ORDER BY id", (incident_id,)
            )
            if incident_id
            else self._rows(f"SELECT {cols} FROM notes ORDER BY id")
        )
        return [Note(**dict(zip(Note.model_fields, r, strict=True))) for r in rows]

    def audit_rows(self, target: str | None = None) -> list[AuditRow]:
        cols = ", ".join(AuditRow.model_fields)
        rows = (
            self._rows(f"SELECT {cols} FROM audit_log WHERE target = ? ORDER BY id", (target,))
            if target
            else self._rows(f"SELECT {cols} FROM audit_log ORDER BY id")
        )
        return [AuditRow(**dict(zip(AuditRow.model_fields, r, strict=True))) for r in rows]

    def snapshot(self) -> Snapshot:
        return Snapshot(
            services=self.service_statuses(),
            incidents=self.incident_statuses(),
            notes=self._rows("SELECT count(*) FROM notes")[0][0],
            audit=self._rows("SELECT count(*) FROM audit_log")[0][0],
        )

    # -- writes ------------------------------------------------------------------------------

    def _advance_clock(self) -> str:
        """Next scenario time; call inside the write's transaction."""
        (clock,) = self._conn.execute("SELECT value FROM meta WHERE key = 'clock'").fetchone()
        clock = _tick(clock)
        self._conn.execute("UPDATE meta SET value = ? WHERE key = 'clock'", (clock,))
        return clock

    def add_note(self, incident_id: str, text: str, session_id: str, invocation_id: str) -> Note:
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                at = self._advance_clock()
                self._conn.execute(
                    "INSERT INTO notes (incident_id, text, session_id, invocation_id, created_at)"
                    " VALUES (?, ?, ?, ?, ?)",
                    (incident_id, text, session_id, invocation_id, at),
                )
                self._conn.execute("COMMIT")
            except BaseException:
                if self._conn.in_transaction:
                    self._conn.execute("ROLLBACK")
                raise
        return Note(
            incident_id=incident_id,
            text=text,
            session_id=session_id,
            invocation_id=invocation_id,
            created_at=at,
        )

    def apply_write(
        self,
        action: WriteAction,
        target: str,
        *,
        approver: str,
        rationale: str,
        session_id: str,
        invocation_id: str,
    ) -> WriteOutcome:
        """Change the target's status and append the audit row, atomically and at most once."""
        table, key, new_status = EFFECTS[action]
        with self._lock:
            conn = self._conn
            conn.execute("BEGIN IMMEDIATE")
            try:
                before = conn.execute(
                    f"SELECT status FROM {table} WHERE {key} = ?", (target,)
                ).fetchone()[0]
                done = conn.execute(
                    "SELECT before_status, after_status FROM audit_log"
                    " WHERE invocation_id = ? AND action = ? AND target = ?",
                    (invocation_id, action, target),
                ).fetchone()
                if done:
                    conn.execute("ROLLBACK")
                    return WriteOutcome(
                        applied=False, before_status=done[0], after_status=done[1], duplicate=True
                    )
                at = self._advance_clock()
                conn.execute(
                    "INSERT INTO audit_log (approver, rationale, session_id, invocation_id,"
                    " action, target, before_status, after_status, at)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        approver,
                        rationale,
                        session_id,
                        invocation_id,
                        action,
                        target,
                        before,
                        new_status,
                        at,
                    ),
                )
                conn.execute(
                    f"UPDATE {table} SET status = ?, updated_at = ? WHERE {key} = ?",
                    (new_status, at, target),
                )
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
        return WriteOutcome(applied=True, before_status=before, after_status=new_status)
