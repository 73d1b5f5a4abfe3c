"""The state store's SQLite schema, and the rules that make its two ledgers tamper-evident.

The audit log and the notes are ledgers: rows are only ever appended. Triggers refuse UPDATE,
DELETE, and an INSERT that would clash with a row already there -- which is how REPLACE and
UPSERT overwrite a row, and SQLite does not fire a delete trigger for a REPLACE unless the
connection turned `recursive_triggers` on, which an attacker's connection would not. Triggers
can be dropped, though, so every ledger row also carries a hash of its content and of the row
before it (`audit_chain` checks the chain), starting from a genesis value derived from the seed.

`meta` holds the store's own bookkeeping: the scenario clock and each ledger's head, which only
ever move forward, and the schema version and seed digest, which never change. Its triggers
refuse the rest (a delete, a second insert of a key, an unknown key, a non-text value, a clock
or head moved back), so rewinding a ledger to hide its newest rows needs a trigger dropped --
and a dropped trigger, even one put back, can only be caught with an anchor kept outside the
file (`ops-eval audit verify --expect-head`).

Each ledger row also keeps `approval_id`, the confirmation request whose approval it used
(empty for a note that needed none), unique where not empty: an approval acts at most once, however
many times its answer arrives at once (`approval`). And it keeps `provenance`: where the write's
arguments came from, as the approval request showed it (`provenance`; JSON, empty for a note that
needed no approval), hashed with the rest of the row.

`SCHEMA_VERSION` is stored in `meta`; a file without it predates the hash chain and is refused,
and one of an older version (2: no triggers on meta; 3: no approval ids; 4: no provenance) is
refused with the advice to start afresh.
"""

from __future__ import annotations

from ops_copilot.seed.models import CLOCK_FORMAT

SCHEMA_VERSION = "5"

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
        "approval_id",
        "provenance",
    ),
    "notes": (
        "id",
        "incident_id",
        "text",
        "session_id",
        "invocation_id",
        "created_at",
        "approval_id",
        "provenance",
    ),
}
TIME_COLUMN = {"audit_log": "at", "notes": "created_at"}


def head_key(table: str) -> str:
    """The `meta` key holding a ledger's head: the id and hash of the last row the store wrote."""
    return f"head:{table}"


# Every key the store writes to meta; `MOVING` ones only ever move forward.
META_FIXED = ("schema_version", "seed_digest")
META_MOVING = ("clock", *(head_key(t) for t in LEDGERS))
META_KEYS = (*META_FIXED, *META_MOVING)

# What each guarded action does to its target: (table, key column, new status).
EFFECTS: dict[str, tuple[str, str, str]] = {
    "restart_service": ("services", "name", "operational"),
    "resolve_incident": ("incidents", "id", "resolved"),
}
# The guarded actions with nothing to do on a target that already has the status they set: a
# resolved incident is not resolved again (a restart restarts a running service all the same).
DONE_ONCE = frozenset({"resolve_incident"})

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
    approval_id TEXT NOT NULL,
    provenance TEXT NOT NULL,
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
    approval_id TEXT NOT NULL,
    provenance TEXT NOT NULL,
    prev_hash TEXT NOT NULL,
    row_hash TEXT NOT NULL,
    UNIQUE (invocation_id, action, target)
);
CREATE UNIQUE INDEX audit_log_one_per_approval ON audit_log (approval_id) WHERE approval_id != '';
CREATE UNIQUE INDEX notes_one_per_approval ON notes (approval_id) WHERE approval_id != '';
"""

# A row "already there" for each ledger: every key an INSERT OR REPLACE could clash on.
_SAME_APPROVAL = " OR (NEW.approval_id != '' AND approval_id = NEW.approval_id)"
_CLASH = {
    "audit_log": "id = NEW.id OR (invocation_id = NEW.invocation_id AND action = NEW.action"
    " AND target = NEW.target)" + _SAME_APPROVAL,
    "notes": "id = NEW.id" + _SAME_APPROVAL,
}


def _append_only(table: str) -> dict[str, str]:
    abort = f"BEGIN SELECT RAISE(ABORT, '{table} is append-only'); END"
    return {
        f"{table}_no_update": f"CREATE TRIGGER {table}_no_update BEFORE UPDATE ON {table} {abort}",
        f"{table}_no_delete": f"CREATE TRIGGER {table}_no_delete BEFORE DELETE ON {table} {abort}",
        f"{table}_no_replace": f"CREATE TRIGGER {table}_no_replace BEFORE INSERT ON {table}"
        f" WHEN EXISTS (SELECT 1 FROM {table} WHERE {_CLASH[table]}) {abort}",
    }


def _meta_forward_only() -> dict[str, str]:
    """Each write moves the clock one tick and its ledger's head one row forward (`<id>:<hash>`,
    the hash 64 hex digits), as text, in the store's own format; anything else is refused."""
    abort = "BEGIN SELECT RAISE(ABORT, 'meta only moves forward'); END"
    known = ", ".join(f"'{k}'" for k in META_KEYS)
    tail = "substr(NEW.value, instr(NEW.value, ':') + 1)"
    next_tick = f"strftime('{CLOCK_FORMAT}', OLD.value, '+1 seconds')"
    next_head = (
        f"(CAST(OLD.value AS INTEGER) + 1) || ':' || {tail} AND length({tail}) = 64"
        f" AND {tail} NOT GLOB '*[^0-9a-f]*'"
    )
    return {
        "meta_no_delete": f"CREATE TRIGGER meta_no_delete BEFORE DELETE ON meta {abort}",
        "meta_insert_once": "CREATE TRIGGER meta_insert_once BEFORE INSERT ON meta"
        f" WHEN NEW.key NOT IN ({known}) OR typeof(NEW.value) != 'text'"
        f" OR EXISTS (SELECT 1 FROM meta WHERE key = NEW.key) {abort}",
        "meta_forward_only": "CREATE TRIGGER meta_forward_only BEFORE UPDATE ON meta"
        " WHEN NEW.key IS NOT OLD.key OR typeof(NEW.value) != 'text' OR NOT ("
        f"(OLD.key = 'clock' AND NEW.value = {next_tick})"
        f" OR (OLD.key LIKE 'head:%' AND NEW.value = {next_head})) {abort}",
    }


TRIGGERS: dict[str, str] = {
    **{name: sql for t in LEDGERS for name, sql in _append_only(t).items()},
    **_meta_forward_only(),
}
SCHEMA = _TABLES + "".join(f"{sql};\n" for sql in TRIGGERS.values())
