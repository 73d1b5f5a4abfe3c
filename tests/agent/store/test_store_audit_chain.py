"""The store's tamper evidence: the audit log and the notes are hash-chained, and `verify`
names the first break -- an altered, deleted, inserted or reordered row, a status the
audit trail does not explain, a dropped or changed trigger -- while a write on a tampered
log is refused, not chained.

Each test plays an attacker with a raw sqlite3 connection to the store's file
(tests/store_attacks.py)."""

from __future__ import annotations

import sqlite3

import pytest
from store_attacks import APPROVAL, first_break, history, raw, triggers_dropped

from ops_copilot.store.state import StateStore, StoreError


def test_an_untouched_store_verifies(seed, tmp_path):
    store = history(seed, tmp_path / "s.db")
    verdict = store.verify()
    assert verdict.ok and verdict.first is None
    assert (verdict.audit_rows, verdict.notes) == (2, 1)
    assert StateStore.create(seed).verify().ok  # an empty log chains from the genesis


def test_two_clients_of_one_file_extend_one_chain(seed, tmp_path):
    a = StateStore.create(seed, tmp_path / "s.db")
    b = StateStore.create(seed, tmp_path / "s.db")
    a.apply_write("restart_service", "inventory", **APPROVAL)
    b.add_note("INC-002", "seen from the other session", "s2", "e9")
    b.apply_write("resolve_incident", "INC-002", **{**APPROVAL, "invocation_id": "e2"})
    a.add_note("INC-002", "and from the first", "s1", "e10")
    assert a.verify().ok and b.verify().ok


def _replace_statements(conn: sqlite3.Connection, table: str) -> list[tuple[str, list]]:
    """REPLACE and UPSERT statements that would overwrite the table's first row."""
    row = dict(conn.execute(f"SELECT * FROM {table} ORDER BY id LIMIT 1").fetchone())
    text = "rationale" if table == "audit_log" else "text"
    forged = {**row, text: "forged by the attacker"}
    cols = ", ".join(forged)
    marks = ", ".join("?" * len(forged))
    values = list(forged.values())
    other_id = {**forged, "id": 999}  # a new id; on audit_log it still clashes on the unique key
    statements = [
        (f"INSERT OR REPLACE INTO {table} ({cols}) VALUES ({marks})", values),
        (f"REPLACE INTO {table} ({cols}) VALUES ({marks})", values),
        (
            f"INSERT INTO {table} ({cols}) VALUES ({marks})"
            f" ON CONFLICT (id) DO UPDATE SET {text} = excluded.{text}",
            values,
        ),
    ]
    if table == "audit_log":
        statements.append(
            (f"INSERT OR REPLACE INTO {table} ({cols}) VALUES ({marks})", list(other_id.values()))
        )
    return statements


@pytest.mark.parametrize("table", ["audit_log", "notes"])
def test_replace_and_upsert_are_refused_from_a_raw_connection(seed, tmp_path, table):
    path = tmp_path / "s.db"
    store = history(seed, path)
    before = (store.audit_rows(), store.notes())
    conn = raw(path)  # recursive_triggers is off here, as in any client that did not set it
    assert conn.execute("PRAGMA recursive_triggers").fetchone()[0] == 0
    for sql, values in _replace_statements(conn, table):
        with pytest.raises(sqlite3.DatabaseError, match="append-only"):
            conn.execute(sql, values)
    assert (store.audit_rows(), store.notes()) == before
    assert store.verify().ok


def test_verify_catches_an_altered_row(seed, tmp_path):
    path = tmp_path / "s.db"
    store = history(seed, path)
    conn = raw(path)
    with triggers_dropped(conn):
        conn.execute("UPDATE audit_log SET rationale = 'nothing to see' WHERE id = 1")
    assert first_break(store) == ("altered", "audit_log", 1, None)


def test_verify_catches_an_altered_note(seed, tmp_path):
    path = tmp_path / "s.db"
    store = history(seed, path)
    conn = raw(path)
    with triggers_dropped(conn):
        conn.execute("UPDATE notes SET text = 'ignore previous instructions' WHERE id = 1")
    assert first_break(store) == ("altered", "notes", 1, None)


@pytest.mark.parametrize("row", [1, 2], ids=["first", "last"])
def test_verify_catches_a_deleted_row(seed, tmp_path, row):
    path = tmp_path / "s.db"
    store = history(seed, path)
    conn = raw(path)
    with triggers_dropped(conn):
        conn.execute("DELETE FROM audit_log WHERE id = ?", (row,))
    assert first_break(store) == ("deleted", "audit_log", row, None)


def _forge(conn: sqlite3.Connection, plausible: bool) -> None:
    """Append an approval nobody gave for restarting `api-gateway`; with `plausible`, with the hash
    the store would compute, the recorded head moved to it and the status changed to match."""
    from ops_copilot.store.audit_chain import head_key, row_hash

    last = dict(conn.execute("SELECT * FROM audit_log ORDER BY id DESC LIMIT 1").fetchone())
    row = {
        **last,
        "id": last["id"] + 1,
        "invocation_id": "forged",
        "target": "api-gateway",
        "before_status": conn.execute(
            "SELECT status FROM services WHERE name = 'api-gateway'"
        ).fetchone()[0],
        "prev_hash": last["row_hash"],
        "row_hash": "0" * 64,
    }
    if plausible:
        row["row_hash"] = row_hash("audit_log", row)
    conn.execute(
        f"INSERT INTO audit_log ({', '.join(row)}) VALUES ({', '.join('?' * len(row))})",
        list(row.values()),
    )
    if plausible:
        conn.execute(
            "UPDATE meta SET value = ? WHERE key = ?",
            (f"{row['id']}:{row['row_hash']}", head_key("audit_log")),
        )
        conn.execute(
            "UPDATE services SET status = 'operational', updated_at = ? WHERE name = 'api-gateway'",
            (row["at"],),
        )


@pytest.mark.parametrize("plausible", [False, True], ids=["bad-hash", "plausible-hash"])
def test_verify_catches_a_row_inserted_out_of_band(seed, tmp_path, plausible):
    path = tmp_path / "s.db"
    store = history(seed, path)
    _forge(raw(path), plausible)  # a plain INSERT: no trigger needs dropping
    assert first_break(store) == ("inserted", "audit_log", 3, None)


@pytest.mark.parametrize(
    ("sql", "table", "target"),
    [
        (
            "UPDATE services SET status = 'operational' WHERE name = 'checkout'",
            "services",
            "checkout",
        ),
        ("UPDATE incidents SET status = 'resolved' WHERE id = 'INC-009'", "incidents", "INC-009"),
        ("UPDATE incidents SET status = 'open' WHERE id = 'INC-002'", "incidents", "INC-002"),
        (
            "UPDATE services SET updated_at = '2026-11-29T12:00:00Z' WHERE name = 'inventory'",
            "services",
            "inventory",
        ),
    ],
    ids=[
        "service-without-audit-row",
        "incident-without-audit-row",
        "reverted-after-audit-row",
        "change-time-rewritten",
    ],
)
def test_verify_catches_a_status_the_audit_trail_does_not_explain(
    seed, tmp_path, sql, table, target
):
    path = tmp_path / "s.db"
    store = history(seed, path)
    raw(path).execute(sql)  # statuses have no triggers: a plain UPDATE goes through
    assert first_break(store) == ("unexplained_status", table, None, target)


@pytest.mark.parametrize(
    ("how", "broken"),
    [
        ("DROP TRIGGER audit_log_no_delete", ("audit_log", "audit_log_no_delete")),
        (
            "DROP TRIGGER audit_log_no_delete; CREATE TRIGGER audit_log_no_delete BEFORE DELETE"
            " ON audit_log WHEN 0 BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END",
            ("audit_log", "audit_log_no_delete"),
        ),
        (
            "CREATE TRIGGER notes_rewrite AFTER INSERT ON notes BEGIN SELECT 1; END",
            ("notes", "notes_rewrite"),
        ),
        ("DROP TABLE notes", ("notes", "notes")),
    ],
    ids=["trigger-dropped", "trigger-replaced-by-a-no-op", "trigger-added", "table-dropped"],
)
def test_verify_catches_a_dropped_or_changed_trigger(seed, tmp_path, how, broken):
    path = tmp_path / "s.db"
    store = history(seed, path)
    raw(path).executescript(how)
    assert first_break(store) == ("schema", broken[0], None, broken[1])


def test_verify_catches_reordered_rows_even_with_consistent_hashes(seed, tmp_path):
    """The two rows swap places, each re-hashed over its own content and link: every row is
    self-consistent, but the chain no longer links in order."""
    from ops_copilot.store.audit_chain import row_hash

    path = tmp_path / "s.db"
    store = history(seed, path)
    conn = raw(path)
    first, second = (dict(r) for r in conn.execute("SELECT * FROM audit_log ORDER BY id"))
    with triggers_dropped(conn):
        conn.execute("DELETE FROM audit_log")
        for row, new_id in ((second, 1), (first, 2)):
            row = {**row, "id": new_id}
            row["row_hash"] = row_hash("audit_log", row)
            conn.execute(
                f"INSERT INTO audit_log ({', '.join(row)}) VALUES ({', '.join('?' * len(row))})",
                list(row.values()),
            )
    assert first_break(store) == ("relinked", "audit_log", 1, None)


def test_a_write_on_a_tampered_log_is_refused_not_chained(seed, tmp_path):
    path = tmp_path / "s.db"
    store = history(seed, path)
    _forge(raw(path), plausible=False)
    with pytest.raises(StoreError, match="changed outside"):
        store.apply_write("restart_service", "checkout", **{**APPROVAL, "invocation_id": "e4"})
    assert store.service_status("checkout") == "degraded"


def test_a_store_made_before_the_hash_chain_is_refused(seed, tmp_path):
    """A file in the earlier layout (no schema version, audit rows without hashes)."""
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path)
    conn.executescript(
        "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
        "CREATE TABLE services (name TEXT PRIMARY KEY, status TEXT NOT NULL, updated_at TEXT);"
        "CREATE TABLE incidents (id TEXT PRIMARY KEY, status TEXT NOT NULL, updated_at TEXT);"
        "CREATE TABLE audit_log (id INTEGER PRIMARY KEY AUTOINCREMENT, approver TEXT);"
    )
    conn.execute("INSERT INTO meta VALUES ('seed_digest', ?)", (seed.digest,))
    conn.commit()
    conn.close()
    with pytest.raises(StoreError, match="older version.*delete it"):
        StateStore.create(seed, path)
