"""The per-session state store: what the agent can change, in SQLite, created from the seed.

Service and incident statuses start as the seed says; notes and the audit log start empty. A
guarded write checks what it needs (the target's status, that its approval is unused) and
changes state and appends its audit row in one transaction that holds the file's write lock
from its start, so two sessions sharing a file cannot both act on one check; the audit row is
unique per (invocation, action, target), so a replayed approval cannot act twice. Every ledger
row keeps the approval it used, unique: an approval that arrives several times at once (the
tool then runs once per copy, in parallel) writes once, the others find it used. The audit log
and the notes are append-only ledgers (`schema`): triggers refuse edits even from code that
bypasses this module, and a hash chain (`audit_chain`) shows any edit made after dropping them.
Every write first checks the store's schema objects (`schema_objects`, as `audit verify` does):
an object added or dropped outside the store -- a trigger that would run on the write -- refuses
it before anything is read or written.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Literal

from ops_copilot.seed.loading import Seed
from ops_copilot.store import file as store_file
from ops_copilot.store.audit_chain import Verdict, head_key, row_hash, tick, verify
from ops_copilot.store.audit_verdict import Break
from ops_copilot.store.file import StoreError
from ops_copilot.store.records import AuditRow, Note, Snapshot, WriteOutcome
from ops_copilot.store.schema import DONE_ONCE, EFFECTS
from ops_copilot.store.schema_objects import first_difference

WriteAction = Literal["restart_service", "resolve_incident"]
__all__ = ["EFFECTS", "AuditRow", "Note", "Snapshot", "StateStore", "StoreError", "WriteOutcome"]


class StateStore:
    """One SQLite database. `:memory:` for a session or eval case, a file for interactive use."""

    def __init__(self, conn: sqlite3.Connection, seed: Seed, path: str) -> None:
        self._conn = conn
        self._lock = threading.Lock()
        self.seed = seed
        self.seed_digest = seed.digest
        self.path = path

    @classmethod
    def create(cls, seed: Seed, path: str | Path = ":memory:") -> StateStore:
        """A store at `path` holding the seed's initial state; reuses a file made from this seed."""
        path = str(path)
        if path != ":memory:" and Path(path).exists():
            return cls(store_file.reopen(path, seed), seed, path)
        try:
            conn = store_file.build(seed)
            if path == ":memory:":
                return cls(conn, seed, path)
            store_file.save_new(conn, path)
            conn.close()
        except (sqlite3.Error, OSError) as exc:
            raise StoreError(f"{path}: cannot create the state store ({exc})") from None
        return cls(store_file.reopen(path, seed), seed, path)

    @classmethod
    def inspect(cls, seed: Seed, path: str | Path) -> StateStore:
        """An existing store file opened read-only, to be checked (`verify`); never created,
        never changed."""
        return cls(store_file.open_read_only(str(path), seed), seed, str(path))

    def close(self) -> None:
        self._conn.close()

    # -- reads -------------------------------------------------------------------------------

    def _rows(self, sql: str, args: tuple = ()) -> list[tuple]:
        with self._lock:
            return self._conn.execute(sql, args).fetchall()

    def _status(self, table: str, key: str, value: str) -> str:
        """A seed entity's status; a row the seed holds but the store lost was deleted outside
        the store: StoreError, as for any other change `audit verify` reports."""
        found = self._rows(f"SELECT status FROM {table} WHERE {key} = ?", (value,))
        if not found:
            raise self._changed_outside(table)
        return found[0][0]

    def service_status(self, name: str) -> str:
        return self._status("services", "name", name)

    def incident_status(self, incident_id: str) -> str:
        return self._status("incidents", "id", incident_id)

    def already_done(self, action: str, target: str) -> bool:
        """Whether `action` has nothing to do on `target` now (`DONE_ONCE`), to refuse it before
        anyone is asked; the write itself decides again, in its transaction."""
        if action not in DONE_ONCE:
            return False
        table, key, new_status = EFFECTS[action]
        return self._status(table, key, target) == new_status

    def service_statuses(self) -> dict[str, str]:
        return dict(self._rows("SELECT name, status FROM services ORDER BY name"))

    def incident_statuses(self) -> dict[str, str]:
        return dict(self._rows("SELECT id, status FROM incidents ORDER BY id"))

    def notes(self, incident_id: str | None = None) -> list[Note]:
        cols = ", ".join(Note.model_fields)
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

    def verify(self, expect: str | None = None) -> Verdict:
        """Whether the store still tells the truth: schema, hash chains, clock and statuses
        (see `audit_chain`) and, given a head kept from an earlier verdict, that the ledgers
        still extend it; the verdict names the first break."""
        with self._lock:
            return verify(self._conn, self.seed, expect)

    def snapshot(self) -> Snapshot:
        return Snapshot(
            services=self.service_statuses(),
            incidents=self.incident_statuses(),
            notes=self._rows("SELECT count(*) FROM notes")[0][0],
            audit=self._rows("SELECT count(*) FROM audit_log")[0][0],
        )

    # -- writes ------------------------------------------------------------------------------

    def _changed_outside(self, table: str) -> StoreError:
        return StoreError(
            f"{self.path}: {table} was changed outside the store; nothing was written"
            " (check it with `ops-eval audit verify`)"
        )

    @contextmanager
    def _writing(self) -> Iterator[sqlite3.Connection]:
        """One write transaction, holding the file's write lock from its start, so what the
        write checks still holds when it writes; committed at the end unless the body rolled
        it back, rolled back on any error. Refused first when the store's schema objects are
        not this version's: an added trigger would run on the write."""
        with self._lock:
            conn = self._conn
            conn.execute("BEGIN IMMEDIATE")
            try:
                broken = first_difference(conn)
                if broken is not None:
                    raise self._schema_changed(broken)
                yield conn
                if conn.in_transaction:
                    conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise

    def _schema_changed(self, broken: Break) -> StoreError:
        kind, _, change = (broken.detail or "").partition(" ")
        where = f" on {broken.table}" if broken.table != broken.target else ""
        return StoreError(
            f"{self.path}: its schema is not the one this version creates ({kind}"
            f" {broken.target}{where} {change}); nothing was written"
            " (check it with `ops-eval audit verify`)"
        )

    def _advance_clock(self) -> str:
        """Next scenario time; call inside the write's transaction."""
        found = self._conn.execute("SELECT value FROM meta WHERE key = 'clock'").fetchone()
        try:
            clock = tick(found[0])
        except (TypeError, ValueError):  # no clock, or not text of the store's form
            raise self._changed_outside("meta") from None
        self._conn.execute("UPDATE meta SET value = ? WHERE key = 'clock'", (clock,))
        return clock

    def _approval_used(self, table: str, approval_id: str) -> bool:
        """Whether a row of `table` already used this approval; call inside the transaction."""
        return bool(approval_id) and (
            self._conn.execute(
                f"SELECT 1 FROM {table} WHERE approval_id = ?", (approval_id,)
            ).fetchone()
            is not None
        )

    def _append(self, table: str, **values: str) -> None:
        """Append a ledger row chained to the recorded head, and move the head; call inside the
        write's transaction. A row already where the next one goes was written by someone else:
        refuse rather than chain onto it."""
        key = head_key(table)
        found = self._conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        try:
            head_id, _, head_hash = found[0].partition(":")
            row: dict = {"id": int(head_id) + 1, **values, "prev_hash": head_hash}
        except (TypeError, AttributeError, ValueError):  # no head, or not '<id>:<hash>' text
            raise self._changed_outside("meta") from None
        row["row_hash"] = row_hash(table, row)
        try:
            self._conn.execute(
                f"INSERT INTO {table} ({', '.join(row)}) VALUES ({', '.join('?' * len(row))})",
                tuple(row.values()),
            )
        except sqlite3.IntegrityError as exc:
            if "append-only" not in str(exc):
                raise
            raise self._changed_outside(table) from None
        self._conn.execute(
            "UPDATE meta SET value = ? WHERE key = ?", (f"{row['id']}:{row['row_hash']}", key)
        )

    def add_note(
        self,
        incident_id: str,
        text: str,
        session_id: str,
        invocation_id: str,
        approval_id: str = "",
        provenance: str = "",
    ) -> Note | None:
        """Append a note; None, writing nothing, when its approval already wrote one."""
        with self._writing() as conn:
            if self._approval_used("notes", approval_id):
                conn.execute("ROLLBACK")
                return None
            at = self._advance_clock()
            self._append(
                "notes",
                incident_id=incident_id,
                text=text,
                session_id=session_id,
                invocation_id=invocation_id,
                created_at=at,
                approval_id=approval_id,
                provenance=provenance,
            )
        return Note(
            incident_id=incident_id,
            text=text,
            session_id=session_id,
            invocation_id=invocation_id,
            created_at=at,
            approval_id=approval_id,
            provenance=provenance,
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
        approval_id: str = "",
        provenance: str = "",
    ) -> WriteOutcome:
        """Change the target's status and append the audit row, atomically and at most once: not
        again in the same invocation, nor under an approval already used, nor (`DONE_ONCE`) on
        a target that already has the status -- each decided inside the write's transaction."""
        table, key, new_status = EFFECTS[action]
        with self._writing() as conn:
            found = conn.execute(
                f"SELECT status FROM {table} WHERE {key} = ?", (target,)
            ).fetchone()
            if found is None:
                raise self._changed_outside(table)
            before = found[0]
            done = conn.execute(
                "SELECT before_status, after_status FROM audit_log"
                " WHERE (invocation_id = ? AND action = ? AND target = ?)"
                " OR (? != '' AND approval_id = ?)",
                (invocation_id, action, target, approval_id, approval_id),
            ).fetchone()
            if done or (action in DONE_ONCE and before == new_status):
                conn.execute("ROLLBACK")
                return WriteOutcome(
                    applied=False,
                    before_status=done[0] if done else before,
                    after_status=done[1] if done else before,
                    duplicate=bool(done),
                    already_done=not done,
                )
            at = self._advance_clock()
            self._append(
                "audit_log",
                approver=approver,
                rationale=rationale,
                session_id=session_id,
                invocation_id=invocation_id,
                action=action,
                target=target,
                before_status=before,
                after_status=new_status,
                at=at,
                approval_id=approval_id,
                provenance=provenance,
            )
            conn.execute(
                f"UPDATE {table} SET status = ?, updated_at = ? WHERE {key} = ?",
                (new_status, at, target),
            )
        return WriteOutcome(applied=True, before_status=before, after_status=new_status)
