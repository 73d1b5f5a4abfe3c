"""The status half of `audit_chain.verify`: replay the audit rows over the seed's statuses, and
the services and incidents tables must hold exactly the result -- each key, status and change
time of the type the store writes (text; a change time may be null), else the row is altered.
"""

from __future__ import annotations

import sqlite3

from ops_copilot.seed.loading import Seed
from ops_copilot.store.audit_verdict import Break, kind_of
from ops_copilot.store.schema import EFFECTS

_KEYS = {table: key for table, key, _ in EFFECTS.values()}


def statuses(conn: sqlite3.Connection, audit: list[dict], seed: Seed) -> Break | None:
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
        have, broken = _held(conn, table)
        if broken is not None:
            return broken
        for target in sorted(want.keys() | have.keys()):
            if have.get(target) != want.get(target):
                detail = _difference(have.get(target), want.get(target))
                return Break(kind="unexplained_status", table=table, target=target, detail=detail)
    return None


def _held(
    conn: sqlite3.Connection, table: str
) -> tuple[dict[str, tuple[str, str | None]], Break | None]:
    """key -> (status, change time) of one status table, or the first row holding a value of
    another type than the store writes (named by its key, or by rowid when the key is wrong)."""
    key = _KEYS[table]
    have: dict[str, tuple[str, str | None]] = {}
    rows = conn.execute(f"SELECT rowid, {key}, status, updated_at FROM {table} ORDER BY rowid")
    for rowid, name, status, at in rows:
        target = name if isinstance(name, str) else f"rowid {rowid}"
        for column, value in ((key, name), ("status", status), ("updated_at", at)):
            if not isinstance(value, str) and not (column == "updated_at" and value is None):
                detail = f"{column} is {kind_of(value)}, not text"
                return have, Break(kind="altered", table=table, target=target, detail=detail)
        have[name] = (status, at)
    return have, None


def _difference(have: tuple[str, str | None] | None, want: tuple[str, str | None] | None) -> str:
    """How a status row differs from what the seed and the audit trail make it."""
    if want is None:
        return "not in the seed"
    if have is None:
        return "missing from the store"
    if have[0] != want[0]:
        return f"it is {have[0]}; the seed and the audit trail leave it {want[0]}"
    return f"last changed {have[1] or 'never'}; the audit trail says {want[1] or 'never'}"
