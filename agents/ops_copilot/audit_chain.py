"""The hash chain over the store's ledgers (audit log and notes), and `verify`, which says whether
a store still tells the truth -- and, if not, the first thing that gives it away.

Each ledger row's `row_hash` is sha256 over a canonical JSON of the ledger's name, the row's
columns and `prev_hash`, the previous row's hash (the first row's is a genesis value derived from
the seed digest). `meta` records each ledger's head (`<id>:<hash>`), moved in the write's own
transaction. `verify` reports the first break of one of these kinds:

- `schema`: a trigger or table dropped, changed or added (the triggers are what refuse edits);
- `deleted`: a row missing from a ledger (an id gap, or rows after the last one remaining that
  the head says were written, or fewer rows than the clock counted writes);
- `inserted`: a row written outside the store (past the recorded head, or stamped with a time the
  store's clock never gave, as a forger with a plausible hash still does);
- `altered`: a row whose content no longer matches its hash, or a re-hashed last row;
- `relinked`: a self-consistent row that does not chain to its predecessor (rows reordered, or
  a chain re-linked around a removal);
- `unexplained_status`: a service or incident status (or change time) that the seed and the
  audit rows, replayed in order, do not produce -- a status changed with no audit row.

A forger who re-implements the store -- plausible hashes, head, clock and statuses all moved
together -- is not caught: nothing outside the file anchors it.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from datetime import UTC, datetime, timedelta
from functools import cache
from typing import Any, Literal

from pydantic import BaseModel

from .schema import EFFECTS, LEDGERS, SCHEMA, TIME_COLUMN
from .seed import Seed

_KEYS = {table: key for table, key, _ in EFFECTS.values()}

Kind = Literal["schema", "deleted", "inserted", "altered", "relinked", "unexplained_status"]


def genesis(table: str, seed_digest: str) -> str:
    """The `prev_hash` of a ledger's first row: bound to the seed the store was made from."""
    return hashlib.sha256(f"ops-copilot {table} genesis {seed_digest}".encode()).hexdigest()


def row_hash(table: str, row: dict[str, Any]) -> str:
    """The hash a ledger row must carry: its columns and its `prev_hash`, in a fixed order."""
    values = [table, *(row[c] for c in LEDGERS[table]), row["prev_hash"]]
    canonical = json.dumps(values, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def head_key(table: str) -> str:
    """The `meta` key holding a ledger's head: the id and hash of the last row the store wrote."""
    return f"head:{table}"


class Break(BaseModel):
    """The first sign of tampering: which kind, where (a ledger row, a target, a schema object)."""

    kind: Kind
    table: str
    row: int | None = None
    target: str | None = None
    detail: str

    def __str__(self) -> str:
        where = f"{self.table} row {self.row}" if self.row is not None else self.table
        if self.target is not None:
            where += f" {self.target}"
        return f"{where}: {self.kind} ({self.detail})"


class Verdict(BaseModel):
    audit_rows: int
    notes: int
    first: Break | None = None

    @property
    def ok(self) -> bool:
        return self.first is None


def verify(conn: sqlite3.Connection, seed: Seed) -> Verdict:
    """Check a store made from `seed`: schema, both chains, the clock, and every status."""
    broken = _schema(conn)
    if broken is not None:  # a table may be gone: read nothing that relies on the schema
        return Verdict(
            audit_rows=_count(conn, "audit_log"), notes=_count(conn, "notes"), first=broken
        )
    ledgers = {t: _dicts(conn, f"SELECT * FROM {t} ORDER BY id") for t in LEDGERS}
    meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
    first = (
        _chains(ledgers, meta, seed.digest)
        or _clock(ledgers, meta, seed.world.now)
        or _statuses(conn, ledgers["audit_log"], seed)
    )
    return Verdict(audit_rows=len(ledgers["audit_log"]), notes=len(ledgers["notes"]), first=first)


def _count(conn: sqlite3.Connection, table: str) -> int:
    try:
        return conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
    except sqlite3.OperationalError:
        return 0


def _dicts(conn: sqlite3.Connection, sql: str) -> list[dict[str, Any]]:
    cursor = conn.execute(sql)
    columns = [d[0] for d in cursor.description]
    return [dict(zip(columns, row, strict=True)) for row in cursor.fetchall()]


@cache
def _expected_schema() -> dict[str, tuple[str, str, str]]:
    conn = sqlite3.connect(":memory:")
    conn.executescript(SCHEMA)
    try:
        return _objects(conn)
    finally:
        conn.close()


def _objects(conn: sqlite3.Connection) -> dict[str, tuple[str, str, str]]:
    """name -> (type, table, SQL with whitespace collapsed) of every table, trigger and index."""
    rows = conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY rowid")
    return {r[1]: (r[0], r[2], " ".join((r[3] or "").split())) for r in rows}


def _schema(conn: sqlite3.Connection) -> Break | None:
    expected, actual = _expected_schema(), _objects(conn)
    for name, (kind, table, sql) in expected.items():
        if name not in actual:
            return Break(kind="schema", table=table, target=name, detail=f"{kind} dropped")
        if actual[name] != (kind, table, sql):
            return Break(kind="schema", table=table, target=name, detail=f"{kind} changed")
    for name, (kind, table, _) in actual.items():
        if name not in expected:
            return Break(kind="schema", table=table, target=name, detail=f"{kind} added")
    return None


def _head(meta: dict[str, str], table: str) -> tuple[int, str] | None:
    raw = meta.get(head_key(table), "")
    head_id, _, head_hash = raw.partition(":")
    return (int(head_id), head_hash) if head_id.isdigit() and head_hash else None


def _chains(ledgers: dict[str, list[dict]], meta: dict[str, str], digest: str) -> Break | None:
    for table, rows in ledgers.items():
        head = _head(meta, table)
        if head is None:
            return Break(
                kind="altered", table=table, detail="the store's record of its head is gone"
            )
        head_id, head_hash = head
        prev_id, prev_hash = 0, genesis(table, digest)
        for row in rows:
            rid = row["id"]
            if rid > head_id:
                detail = f"written after the last row the store wrote ({head_id})"
                return Break(kind="inserted", table=table, row=rid, detail=detail)
            if rid != prev_id + 1:
                return Break(kind="deleted", table=table, row=prev_id + 1, detail="row missing")
            if row_hash(table, row) != row["row_hash"]:
                detail = "its content does not match its hash"
                return Break(kind="altered", table=table, row=rid, detail=detail)
            if row["prev_hash"] != prev_hash:
                detail = f"it does not chain to row {prev_id}" if prev_id else "not the first row"
                return Break(kind="relinked", table=table, row=rid, detail=detail)
            prev_id, prev_hash = rid, row["row_hash"]
        if prev_id < head_id:
            detail = f"the store wrote rows up to {head_id}"
            return Break(kind="deleted", table=table, row=prev_id + 1, detail=detail)
        if prev_hash != head_hash:
            detail = "re-hashed: not the hash the store recorded for it"
            return Break(kind="altered", table=table, row=prev_id, detail=detail)
    return None


def tick(start: str, n: int = 1) -> str:
    """The scenario clock `n` seconds after `start` (ISO 8601, UTC, 'Z'): each write takes one."""
    moment = datetime.strptime(start, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    return (moment + timedelta(seconds=n)).strftime("%Y-%m-%dT%H:%M:%SZ")


def _clock(ledgers: dict[str, list[dict]], meta: dict[str, str], now: str) -> Break | None:
    """Every write takes the next second of the scenario clock: the rows' times, across both
    ledgers, must be exactly the ticks after the seed's `now`, and the clock must stop at the
    last of them."""
    stamped = sorted(
        (row[TIME_COLUMN[table]], table, row["id"])
        for table, rows in ledgers.items()
        for row in rows
    )
    for n, (at, table, rid) in enumerate(stamped, start=1):
        expected = tick(now, n)
        if at < expected:
            detail = f"stamped {at}, a time the store's clock already gave"
            return Break(kind="inserted", table=table, row=rid, detail=detail)
        if at > expected:
            detail = f"a write at {expected} is missing before this row"
            return Break(kind="deleted", table=table, row=rid, detail=detail)
    clock, last = meta.get("clock", ""), tick(now, len(stamped))
    if stamped and clock < last:
        at, table, rid = stamped[-1]
        detail = f"stamped {at}, after the store's clock ({clock})"
        return Break(kind="inserted", table=table, row=rid, detail=detail)
    if clock > last:
        detail = f"the clock counted writes up to {clock}; the last row left is at {last}"
        return Break(kind="deleted", table="audit_log/notes", detail=detail)
    return None


def _statuses(conn: sqlite3.Connection, audit: list[dict], seed: Seed) -> Break | None:
    """Replay the audit rows over the seed's statuses; the tables must hold exactly the result."""
    expected = {
        "services": {n: (s.status, None) for n, s in seed.services.items()},
        "incidents": {i: (inc.status, None) for i, inc in seed.incidents.items()},
    }
    for row in audit:
        effect = EFFECTS.get(row["action"])
        table = effect[0] if effect else "audit_log"
        state = expected.get(table, {}).get(row["target"])
        if effect is None or state is None:
            detail = f"{row['action']} on {row['target']} is not a write the store makes"
            return Break(kind="unexplained_status", table="audit_log", row=row["id"], detail=detail)
        if (row["before_status"], row["after_status"]) != (state[0], effect[2]):
            detail = (
                f"says {row['before_status']} -> {row['after_status']}; the trail had it "
                f"{state[0]} and {row['action']} makes it {effect[2]}"
            )
            return Break(
                kind="unexplained_status", table=table, row=row["id"], target=row["target"],
                detail=detail,
            )  # fmt: skip
        expected[table][row["target"]] = (effect[2], row["at"])
    for table, want in expected.items():
        key = _KEYS[table]
        rows = conn.execute(f"SELECT {key}, status, updated_at FROM {table}").fetchall()
        have = {r[0]: (r[1], r[2]) for r in rows}
        for target in sorted(want.keys() | have.keys()):
            if have.get(target) != want.get(target):
                detail = _difference(have.get(target), want.get(target))
                return Break(kind="unexplained_status", table=table, target=target, detail=detail)
    return None


def _difference(have: tuple[str, str | None] | None, want: tuple[str, str | None] | None) -> str:
    """How a status row differs from what the seed and the audit trail make it."""
    if want is None:
        return "not in the seed"
    if have is None:
        return "missing from the store"
    if have[0] != want[0]:
        return f"it is {have[0]}; the seed and the audit trail leave it {want[0]}"
    return f"last changed {have[1] or 'never'}; the audit trail says {want[1] or 'never'}"
