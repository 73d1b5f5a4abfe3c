"""The store read after edits no store code would make: a value of the wrong type, its meta
moved back, objects named like SQLite's own, an index pointed at another b-tree, an
object's SQL stored as a blob, a seed row deleted -- each is tampering or a store error,
never a crash, and a write on tampered meta is refused; what SQLite itself adds (ANALYZE)
is not tampering.

Each test plays an attacker with a raw sqlite3 connection to the store's file
(tests/store_attacks.py)."""

from __future__ import annotations

import sqlite3

import pytest
from store_attacks import APPROVAL, first_break, history, raw, triggers_dropped

from ops_copilot.store.state import StateStore, StoreError


@pytest.mark.parametrize(
    ("sql", "broken", "says"),
    [
        (
            "UPDATE meta SET value = X'3a41' WHERE key = 'head:audit_log'",
            ("altered", "meta", None, "head:audit_log"),
            "a blob, not text",
        ),
        (
            "UPDATE meta SET value = X'41' WHERE key = 'clock'",
            ("altered", "meta", None, "clock"),
            "a blob, not text",
        ),
        (
            "UPDATE meta SET value = 99 WHERE key = 'clock'",
            ("altered", "meta", None, "clock"),
            "not a time of the scenario clock",
        ),
        (
            "UPDATE meta SET value = 'abc' WHERE key = 'head:notes'",
            ("altered", "meta", None, "head:notes"),
            "not '<row id>:<hash>'",
        ),
        ("DELETE FROM meta WHERE key = 'clock'", ("deleted", "meta", None, "clock"), "missing"),
        (
            "DELETE FROM meta WHERE key = 'head:notes'",
            ("deleted", "meta", None, "head:notes"),
            "missing",
        ),
        (
            "INSERT INTO meta VALUES ('owner', 'mallory')",
            ("inserted", "meta", None, "owner"),
            "not a key the store writes",
        ),
        (
            "UPDATE audit_log SET approver = X'41' WHERE id = 1",
            ("altered", "audit_log", 1, None),
            "approver is a blob, not text",
        ),
        (
            "UPDATE notes SET row_hash = X'00' WHERE id = 1",
            ("altered", "notes", 1, None),
            "row_hash is a blob, not text",
        ),
        (
            "UPDATE services SET status = X'41' WHERE name = 'checkout'",
            ("altered", "services", None, "checkout"),
            "status is a blob, not text",
        ),
        (
            "UPDATE services SET name = X'41' WHERE name = 'checkout'",
            ("altered", "services", None, "rowid 1"),
            "name is a blob, not text",
        ),
    ],
    ids=[
        "blob-head", "blob-clock", "integer-clock", "garbled-head", "clock-deleted",
        "head-deleted", "meta-key-added", "blob-in-audit-row", "blob-hash-in-note",
        "blob-status", "blob-service-name",
    ],
)  # fmt: skip
def test_a_value_of_the_wrong_type_is_tampering_not_a_crash(seed, tmp_path, sql, broken, says):
    """SQLite stores a blob in any column whatever its declared type; verify type-checks every
    value it reads, and a missing or unknown meta key is named as such."""
    path = tmp_path / "s.db"
    store = history(seed, path)
    conn = raw(path)
    with triggers_dropped(conn):
        conn.execute(sql)
    assert first_break(store) == broken
    assert says in store.verify().first.detail


def test_analyze_is_not_tampering(seed, tmp_path):
    """ANALYZE adds sqlite_stat1 (and maybe sqlite_stat4): SQLite's own statistics, no data."""
    path = tmp_path / "s.db"
    store = history(seed, path)
    raw(path).execute("ANALYZE")
    assert store.verify().ok


def _renamed_in_schema(path, sql: str, name: str) -> None:
    """Create an object named `evil` with `sql`, then rename it to `name` by editing
    sqlite_master (`PRAGMA writable_schema`): SQLite refuses a `sqlite_` name any other way."""
    conn = raw(path)
    conn.execute(sql)
    conn.execute("PRAGMA writable_schema = ON")
    conn.execute(
        "UPDATE sqlite_master SET name = ?, sql = replace(sql, 'evil', ?) WHERE name = 'evil'",
        (name, name),
    )
    conn.execute("PRAGMA writable_schema = OFF")
    conn.close()


BOB_BLOCKED = (
    "CREATE TRIGGER evil BEFORE INSERT ON audit_log WHEN NEW.approver = 'bob'"
    " BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END"
)


@pytest.mark.parametrize(
    "sql, name",
    [
        (BOB_BLOCKED, "sqlite_stat_x"),
        (BOB_BLOCKED, "SQLITE_STATX"),
        (BOB_BLOCKED, "sqlite_stat1"),
        ("CREATE UNIQUE INDEX evil ON notes(incident_id)", "Sqlite_Stat4"),
        ("CREATE INDEX evil ON audit_log(approver)", "sqlite_stat1"),
    ],
)
def test_audit_verify_sees_objects_named_like_sqlites_statistics_tables(seed, tmp_path, sql, name):
    """Only the tables ANALYZE makes, with their own schemas, are SQLite's statistics; a trigger
    or index merely named like one (in any case) is an object the store did not create."""
    path = tmp_path / "s.db"
    history(seed, path).close()
    _renamed_in_schema(path, sql, name)
    store = StateStore.create(seed, path)
    kind, _, _, target = first_break(store)
    assert (kind, target) == ("schema", name)
    if sql is BOB_BLOCKED:  # what the hidden trigger did: one approver could no longer write
        bob = {**APPROVAL, "approver": "bob", "invocation_id": "e9"}
        with pytest.raises(StoreError, match="audit verify"):
            store.apply_write("restart_service", "checkout", **bob)


@pytest.mark.parametrize(
    "sql, name",
    [
        ("CREATE TABLE evil(tbl,idx,stat)", "sqlite_stat5"),
        ("CREATE TABLE evil(tbl,idx,stat,extra)", "sqlite_stat1"),
        ("CREATE VIEW evil AS SELECT * FROM notes", "sqlite_stat_v"),
    ],
)
def test_a_table_or_view_named_like_sqlites_own_is_not_a_store(seed, tmp_path, sql, name):
    """SQLite itself refuses to load a schema with such a table or view: the store is refused
    by name, never verified as intact."""
    path = tmp_path / "s.db"
    history(seed, path).close()
    _renamed_in_schema(path, sql, name)
    for open_store in (StateStore.create, StateStore.inspect):
        with pytest.raises(StoreError, match=f"not a state store .*{name}"):
            open_store(seed, path)


@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE meta SET value = X'3a41' WHERE key = 'head:audit_log'",
        "UPDATE meta SET value = '1:' || substr(value, 3) WHERE key = 'head:audit_log'",
        "UPDATE meta SET value = '2026-11-29T11:00:01Z' WHERE key = 'clock'",
        "UPDATE meta SET value = 99 WHERE key = 'clock'",
        "UPDATE meta SET value = '2026-11-29T11:00:05Z' WHERE key = 'clock'",
        "UPDATE meta SET value = '9' || substr(value, 2) WHERE key = 'head:audit_log'",
        "UPDATE meta SET value = '3:abc' WHERE key = 'head:audit_log'",
        "UPDATE meta SET value = 'x' WHERE key = 'seed_digest'",
        "UPDATE meta SET key = 'clock2' WHERE key = 'clock'",
        "DELETE FROM meta WHERE key = 'clock'",
        "INSERT OR REPLACE INTO meta VALUES ('clock', '2026-11-29T11:00:00Z')",
    ],
    ids=[
        "blob-head", "head-moved-back", "clock-moved-back", "clock-not-a-time",
        "clock-jumps-ahead", "head-jumps-ahead", "head-not-a-hash", "seed-digest", "key-renamed",
        "delete", "replace",
    ],
)  # fmt: skip
def test_meta_only_moves_forward_from_a_raw_connection(seed, tmp_path, sql):
    """Triggers on meta let the store do what it does (move the clock one tick and a head one
    row forward, as text) and refuse the rest, so a rewind needs a trigger dropped."""
    path = tmp_path / "s.db"
    store = history(seed, path)
    with pytest.raises(sqlite3.DatabaseError, match="meta only moves forward"):
        raw(path).execute(sql)
    assert store.verify().ok


@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE meta SET value = X'41' WHERE key = 'clock'",
        "UPDATE meta SET value = '9999-12-31T23:59:59Z' WHERE key = 'clock'",
        "DELETE FROM meta WHERE key = 'head:audit_log'",
    ],
    ids=["blob-clock", "clock-at-the-end-of-time", "head-deleted"],
)
def test_a_write_on_tampered_meta_is_refused_not_a_crash(seed, tmp_path, sql):
    path = tmp_path / "s.db"
    store = history(seed, path)
    conn = raw(path)
    with triggers_dropped(conn):
        conn.execute(sql)
    with pytest.raises(StoreError, match="meta was changed outside the store"):
        store.apply_write("restart_service", "checkout", **{**APPROVAL, "invocation_id": "e4"})
    assert store.service_status("checkout") == "degraded"


def test_an_index_pointed_at_another_b_tree_is_caught(seed, tmp_path):
    """Every object as expected, but the services key index swapped (writable_schema) for one
    that answers a lookup of checkout with payments' row: verify said intact while the app read
    the wrong statuses; SQLite's integrity check sees it."""
    path = tmp_path / "s.db"
    history(seed, path).close()
    conn = raw(path)
    rowids = dict(conn.execute("SELECT name, rowid FROM services").fetchall())
    swap = {"checkout": rowids["payments"], "payments": rowids["checkout"]}
    conn.execute(
        "CREATE TABLE shadow(name TEXT PRIMARY KEY, status TEXT NOT NULL, updated_at TEXT)"
    )
    for name, rowid in rowids.items():
        conn.execute(
            "INSERT INTO shadow(rowid, name, status) VALUES (?, ?, 'x')",
            (swap.get(name, rowid), name),
        )
    (root,) = conn.execute(
        "SELECT rootpage FROM sqlite_master WHERE name = 'sqlite_autoindex_shadow_1'"
    ).fetchone()
    conn.execute("PRAGMA writable_schema = ON")
    conn.execute(
        "UPDATE sqlite_master SET rootpage = ? WHERE name = 'sqlite_autoindex_services_1'", (root,)
    )
    conn.execute("DELETE FROM sqlite_master WHERE name IN ('shadow', 'sqlite_autoindex_shadow_1')")
    (version,) = conn.execute("PRAGMA schema_version").fetchone()
    conn.execute(f"PRAGMA schema_version = {version + 1}")
    conn.close()
    store = StateStore.create(seed, path)
    assert store.service_status("checkout") == seed.services["payments"].status  # the lie
    verdict = store.verify()
    assert (verdict.first.kind, verdict.first.table) == ("schema", "sqlite_master")
    assert "integrity check fails" in verdict.first.detail and "\n" not in str(verdict.first)


def test_an_objects_sql_stored_as_a_blob_is_changed_not_a_crash(seed, tmp_path):
    path = tmp_path / "s.db"
    history(seed, path).close()
    conn = raw(path)
    conn.execute("PRAGMA writable_schema = ON")
    conn.execute(
        "UPDATE sqlite_master SET sql = CAST(sql AS BLOB) WHERE name = 'audit_log_no_update'"
    )
    (version,) = conn.execute("PRAGMA schema_version").fetchone()
    conn.execute(f"PRAGMA schema_version = {version + 1}")
    conn.close()
    assert first_break(StateStore.inspect(seed, path)) == (
        "schema",
        "audit_log",
        None,
        "audit_log_no_update",
    )


@pytest.mark.parametrize("table, key", [("services", "inventory"), ("incidents", "INC-002")])
def test_a_seed_row_deleted_outside_the_store_is_a_store_error_not_a_crash(
    seed, tmp_path, table, key
):
    """A services row deleted behind the store (verify calls it tampering) made an approved
    restart raise TypeError out of the ADK run; reads and writes now say what happened."""
    path = tmp_path / "s.db"
    history(seed, path).close()
    column = "name" if table == "services" else "id"
    raw(path).execute(f"DELETE FROM {table} WHERE {column} = ?", (key,))
    store = StateStore.create(seed, path)
    action = "restart_service" if table == "services" else "resolve_incident"
    read = store.service_status if table == "services" else store.incident_status
    with pytest.raises(StoreError, match=f"{table} was changed outside the store"):
        read(key)
    with pytest.raises(StoreError, match=f"{table} was changed outside the store"):
        store.apply_write(action, key, **{**APPROVAL, "invocation_id": "e9"})
