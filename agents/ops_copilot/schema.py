"""The state store's SQLite schema, and the rules that make its two ledgers tamper-evident.

The audit log and the notes are ledgers: rows are only ever appended. Triggers refuse UPDATE,
DELETE, and an INSERT that would clash with a row already there -- which is how REPLACE and
UPSERT overwrite a row, and SQLite does not fire a delete trigger for a REPLACE unless the
connection turned `recursive_triggers` on, which an attacker's connection would not. Triggers
can be dropped, though, so every ledger row also carries a hash of its content and of the row
before it (`audit_chain` checks the chain), starting from a genesis value derived from the seed.

`SCHEMA_VERSION` is stored in `meta`; a file without it predates the hash chain and is refused.
"""

from __future__ import annotations

SCHEMA_VERSION = "2"

# Hashed columns of each ledger, in hash order (the row's own hash is over these + prev_hash),
# and the column holding its scenario time.
LEDGERS: dict[str, tuple[str, ...]] = {
    "audit_log": (
        "id",
        "approver",
        "rationale",
        "session_id",
        "invocation_id",
        "action",
        "target",
        "before_status",
        "after_status",
        "at",
    ),
    "notes": ("id", "incident_id", "text", "session_id", "invocation_id", "created_at"),
}
TIME_COLUMN = {"audit_log": "at", "notes": "created_at"}

# What each guarded action does to its target: (table, key column, new status).
EFFECTS: dict[str, tuple[str, str, str]] = {
    "restart_service": ("services", "name", "operational"),
    "resolve_incident": ("incidents", "id", "resolved"),
}

_TABLES = """
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
    created_at TEXT NOT NULL,
    prev_hash TEXT NOT NULL,
    row_hash TEXT NOT NULL
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
    prev_hash TEXT NOT NULL,
    row_hash TEXT NOT NULL,
    UNIQUE (invocation_id, action, target)
);
"""

# A row "already there" for each ledger: every key an INSERT OR REPLACE could clash on.
_CLASH = {
    "audit_log": "id = NEW.id OR (invocation_id = NEW.invocation_id AND action = NEW.action"
    " AND target = NEW.target)",
    "notes": "id = NEW.id",
}


def _append_only(table: str) -> dict[str, str]:
    abort = f"BEGIN SELECT RAISE(ABORT, '{table} is append-only'); END"
    return {
        f"{table}_no_update": f"CREATE TRIGGER {table}_no_update BEFORE UPDATE ON {table} {abort}",
        f"{table}_no_delete": f"CREATE TRIGGER {table}_no_delete BEFORE DELETE ON {table} {abort}",
        f"{table}_no_replace": f"CREATE TRIGGER {table}_no_replace BEFORE INSERT ON {table}"
        f" WHEN EXISTS (SELECT 1 FROM {table} WHERE {_CLASH[table]}) {abort}",
    }


TRIGGERS: dict[str, str] = {name: sql for t in LEDGERS for name, sql in _append_only(t).items()}
SCHEMA = _TABLES + "".join(f"{sql};\n" for sql in TRIGGERS.values())
