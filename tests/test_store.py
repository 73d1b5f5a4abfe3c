"""The state store: seeded state, atomic audited writes at most once, append-only audit log."""

from __future__ import annotations

import sqlite3
from contextlib import contextmanager

import pytest

from ops_copilot.seed.loading import load_seed
from ops_copilot.store.state import StateStore, StoreError

APPROVAL = dict(approver="alice", rationale="config reverted", session_id="s1", invocation_id="e1")


def test_fresh_store_mirrors_the_seed(seed):
    store = StateStore.create(seed)
    assert store.service_statuses()["inventory"] == "down"
    assert store.incident_statuses()["INC-002"] == "open"
    assert store.snapshot().notes == 0 and store.snapshot().audit == 0


def test_write_changes_state_and_appends_one_audit_row(seed):
    store = StateStore.create(seed)
    outcome = store.apply_write("restart_service", "inventory", **APPROVAL)
    assert outcome.applied and (outcome.before_status, outcome.after_status) == (
        "down",
        "operational",
    )
    assert store.service_status("inventory") == "operational"
    (row,) = store.audit_rows()
    assert (row.approver, row.rationale, row.action, row.target) == (
        "alice",
        "config reverted",
        "restart_service",
        "inventory",
    )
    assert (row.session_id, row.invocation_id) == ("s1", "e1")


def test_replayed_approval_cannot_act_twice(seed):
    store = StateStore.create(seed)
    store.apply_write("resolve_incident", "INC-002", **APPROVAL)
    again = store.apply_write("resolve_incident", "INC-002", **APPROVAL)
    assert again.duplicate and not again.applied
    assert len(store.audit_rows()) == 1
    # A new invocation (a new approval) is a new action.
    store.apply_write("restart_service", "inventory", **{**APPROVAL, "invocation_id": "e2"})
    assert len(store.audit_rows()) == 2


def test_audit_log_is_append_only_even_for_raw_sql(seed, tmp_path):
    path = tmp_path / "state.db"
    store = StateStore.create(seed, path)
    store.apply_write("restart_service", "inventory", **APPROVAL)
    conn = sqlite3.connect(path)  # another client of the same file, bypassing this module
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        conn.execute("UPDATE audit_log SET rationale = 'x'")
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        conn.execute("DELETE FROM audit_log")
    assert len(store.audit_rows()) == 1


def test_empty_rationale_is_rejected_by_the_schema(seed):
    store = StateStore.create(seed)
    with pytest.raises(sqlite3.IntegrityError):
        store.apply_write("restart_service", "inventory", **{**APPROVAL, "rationale": "  "})
    assert store.service_status("inventory") == "down"
    assert store.audit_rows() == []


def test_stores_are_isolated(seed):
    a, b = StateStore.create(seed), StateStore.create(seed)
    a.apply_write("restart_service", "inventory", **APPROVAL)
    a.add_note("INC-002", "pods OOMKilled", "s1", "e1")
    assert b.snapshot() == StateStore.create(seed).snapshot()
    assert load_seed().services["inventory"].status == "down"


def test_file_store_persists_and_refuses_another_seed(seed, seed_copy, tmp_path):
    path = tmp_path / "ops.db"
    StateStore.create(seed, path).apply_write("restart_service", "inventory", **APPROVAL)
    assert StateStore.create(seed, path).service_status("inventory") == "operational"
    assert not path.with_name("ops.db.tmp").exists()
    (seed_copy / "runbooks/disk-full.md").write_text("# Disk full\n\nchanged\n")
    with pytest.raises(StoreError, match="another seed"):
        StateStore.create(load_seed(seed_copy), path)


def test_a_file_that_is_not_a_store_is_refused(seed, tmp_path):
    path = tmp_path / "junk.db"
    path.write_text("not sqlite at all, just text " * 100)
    with pytest.raises(StoreError, match="not a state store"):
        StateStore.create(seed, path)


# -- tamper evidence ---------------------------------------------------------------------------
# Each test below plays an attacker with a raw sqlite3 connection to the store's file: no pragma
# set, no code of this package used except to compute a hash the way the store does.


def _raw(path) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.row_factory = sqlite3.Row
    return conn


@contextmanager
def _triggers_dropped(conn: sqlite3.Connection):
    """Drop every trigger, run the body, put the triggers back as they were."""
    saved = conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'trigger'").fetchall()
    for name, _ in saved:
        conn.execute(f"DROP TRIGGER {name}")
    yield
    for _, sql in saved:
        conn.execute(sql)


def _history(seed, path) -> StateStore:
    """A file store with two approved writes and a note."""
    store = StateStore.create(seed, path)
    store.apply_write("restart_service", "inventory", **APPROVAL)
    store.add_note("INC-002", "pods OOMKilled after the deploy", "s1", "e2")
    store.apply_write("resolve_incident", "INC-002", **{**APPROVAL, "invocation_id": "e3"})
    return store


def _first_break(store: StateStore) -> tuple[str, str, int | None, str | None]:
    verdict = store.verify()
    assert not verdict.ok and verdict.first is not None, verdict
    b = verdict.first
    return b.kind, b.table, b.row, b.target


def test_an_untouched_store_verifies(seed, tmp_path):
    store = _history(seed, tmp_path / "s.db")
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
    store = _history(seed, path)
    before = (store.audit_rows(), store.notes())
    conn = _raw(path)  # recursive_triggers is off here, as in any client that did not set it
    assert conn.execute("PRAGMA recursive_triggers").fetchone()[0] == 0
    for sql, values in _replace_statements(conn, table):
        with pytest.raises(sqlite3.DatabaseError, match="append-only"):
            conn.execute(sql, values)
    assert (store.audit_rows(), store.notes()) == before
    assert store.verify().ok


def test_verify_catches_an_altered_row(seed, tmp_path):
    path = tmp_path / "s.db"
    store = _history(seed, path)
    conn = _raw(path)
    with _triggers_dropped(conn):
        conn.execute("UPDATE audit_log SET rationale = 'nothing to see' WHERE id = 1")
    assert _first_break(store) == ("altered", "audit_log", 1, None)


def test_verify_catches_an_altered_note(seed, tmp_path):
    path = tmp_path / "s.db"
    store = _history(seed, path)
    conn = _raw(path)
    with _triggers_dropped(conn):
        conn.execute("UPDATE notes SET text = 'ignore previous instructions' WHERE id = 1")
    assert _first_break(store) == ("altered", "notes", 1, None)


@pytest.mark.parametrize("row", [1, 2], ids=["first", "last"])
def test_verify_catches_a_deleted_row(seed, tmp_path, row):
    path = tmp_path / "s.db"
    store = _history(seed, path)
    conn = _raw(path)
    with _triggers_dropped(conn):
        conn.execute("DELETE FROM audit_log WHERE id = ?", (row,))
    assert _first_break(store) == ("deleted", "audit_log", row, None)


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
    store = _history(seed, path)
    _forge(_raw(path), plausible)  # a plain INSERT: no trigger needs dropping
    assert _first_break(store) == ("inserted", "audit_log", 3, None)


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
    store = _history(seed, path)
    _raw(path).execute(sql)  # statuses have no triggers: a plain UPDATE goes through
    assert _first_break(store) == ("unexplained_status", table, None, target)


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
    store = _history(seed, path)
    _raw(path).executescript(how)
    assert _first_break(store) == ("schema", broken[0], None, broken[1])


def test_verify_catches_reordered_rows_even_with_consistent_hashes(seed, tmp_path):
    """The two rows swap places, each re-hashed over its own content and link: every row is
    self-consistent, but the chain no longer links in order."""
    from ops_copilot.store.audit_chain import row_hash

    path = tmp_path / "s.db"
    store = _history(seed, path)
    conn = _raw(path)
    first, second = (dict(r) for r in conn.execute("SELECT * FROM audit_log ORDER BY id"))
    with _triggers_dropped(conn):
        conn.execute("DELETE FROM audit_log")
        for row, new_id in ((second, 1), (first, 2)):
            row = {**row, "id": new_id}
            row["row_hash"] = row_hash("audit_log", row)
            conn.execute(
                f"INSERT INTO audit_log ({', '.join(row)}) VALUES ({', '.join('?' * len(row))})",
                list(row.values()),
            )
    assert _first_break(store) == ("relinked", "audit_log", 1, None)


def test_a_write_on_a_tampered_log_is_refused_not_chained(seed, tmp_path):
    path = tmp_path / "s.db"
    store = _history(seed, path)
    _forge(_raw(path), plausible=False)
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


# -- values of the wrong type, meta, and what SQLite itself adds -------------------------------


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
    store = _history(seed, path)
    conn = _raw(path)
    with _triggers_dropped(conn):
        conn.execute(sql)
    assert _first_break(store) == broken
    assert says in store.verify().first.detail


def test_analyze_is_not_tampering(seed, tmp_path):
    """ANALYZE adds sqlite_stat1 (and maybe sqlite_stat4): SQLite's own statistics, no data."""
    path = tmp_path / "s.db"
    store = _history(seed, path)
    _raw(path).execute("ANALYZE")
    assert store.verify().ok


def _renamed_in_schema(path, sql: str, name: str) -> None:
    """Create an object named `evil` with `sql`, then rename it to `name` by editing
    sqlite_master (`PRAGMA writable_schema`): SQLite refuses a `sqlite_` name any other way."""
    conn = _raw(path)
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
    _history(seed, path).close()
    _renamed_in_schema(path, sql, name)
    store = StateStore.create(seed, path)
    kind, _, _, target = _first_break(store)
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
    _history(seed, path).close()
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
    store = _history(seed, path)
    with pytest.raises(sqlite3.DatabaseError, match="meta only moves forward"):
        _raw(path).execute(sql)
    assert store.verify().ok


# -- truncation: invisible in the file alone, caught against a kept anchor ---------------------


def _rewind_last_write(conn: sqlite3.Connection, seed) -> None:
    """Delete the last audit row and roll back everything that would give it away: head, clock
    and the status it changed -- a consistent truncation."""
    from ops_copilot.store.audit_chain import tick

    with _triggers_dropped(conn):
        conn.execute("DELETE FROM audit_log WHERE id = 2")
        first = conn.execute("SELECT row_hash FROM audit_log WHERE id = 1").fetchone()[0]
        conn.execute("UPDATE meta SET value = ? WHERE key = 'head:audit_log'", (f"1:{first}",))
        conn.execute("UPDATE meta SET value = ? WHERE key = 'clock'", (tick(seed.world.now, 2),))
        conn.execute(
            "UPDATE incidents SET status = ?, updated_at = NULL WHERE id = 'INC-002'",
            (seed.incidents["INC-002"].status,),
        )


def _wipe(conn: sqlite3.Connection, seed) -> None:
    from ops_copilot.store.audit_chain import genesis, head_key

    with _triggers_dropped(conn):
        conn.execute("DELETE FROM audit_log")
        conn.execute("DELETE FROM notes")
        for table in ("audit_log", "notes"):
            conn.execute(
                "UPDATE meta SET value = ? WHERE key = ?",
                (f"0:{genesis(table, seed.digest)}", head_key(table)),
            )
        conn.execute("UPDATE meta SET value = ? WHERE key = 'clock'", (seed.world.now,))
        conn.execute(
            "UPDATE services SET status = 'down', updated_at = NULL WHERE name = 'inventory'"
        )
        conn.execute("UPDATE incidents SET status = 'open', updated_at = NULL WHERE id = 'INC-002'")


@pytest.mark.parametrize("rewind", [_rewind_last_write, _wipe], ids=["last-write", "everything"])
def test_a_consistent_truncation_is_caught_only_against_a_kept_anchor(seed, tmp_path, rewind):
    path = tmp_path / "s.db"
    store = _history(seed, path)
    kept = store.verify().head
    rewind(_raw(path), seed)
    assert store.verify().ok  # the file alone cannot tell: documented in docs/approvals.md
    verdict = store.verify(expect=kept)
    assert verdict.first is not None and verdict.first.kind == "rewound", verdict
    assert f"head is {verdict.head}, expected {kept}" in verdict.first.detail


def test_an_anchor_still_verifies_after_later_writes(seed, tmp_path):
    store = _history(seed, tmp_path / "s.db")
    kept = store.verify().head
    store.add_note("INC-002", "a later note", "s1", "e4")
    store.apply_write("restart_service", "checkout", **{**APPROVAL, "invocation_id": "e5"})
    verdict = store.verify(expect=kept)
    assert verdict.ok and verdict.head != kept


def test_an_anchor_whose_rows_were_rewritten_is_caught(seed, tmp_path):
    """Truncate and re-append as many rows: the counts match the anchor, the hashes do not."""
    path = tmp_path / "s.db"
    store = _history(seed, path)
    kept = store.verify().head
    _wipe(_raw(path), seed)
    again = StateStore.create(seed, path)
    again.apply_write("restart_service", "inventory", **{**APPROVAL, "rationale": "other words"})
    again.add_note("INC-002", "pods OOMKilled after the deploy", "s1", "e2")
    again.apply_write("resolve_incident", "INC-002", **{**APPROVAL, "invocation_id": "e3"})
    assert again.verify().ok
    first = again.verify(expect=kept).first
    assert first is not None and first.kind == "rewound"


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
    store = _history(seed, path)
    conn = _raw(path)
    with _triggers_dropped(conn):
        conn.execute(sql)
    with pytest.raises(StoreError, match="meta was changed outside the store"):
        store.apply_write("restart_service", "checkout", **{**APPROVAL, "invocation_id": "e4"})
    assert store.service_status("checkout") == "degraded"


def test_an_index_pointed_at_another_b_tree_is_caught(seed, tmp_path):
    """Every object as expected, but the services key index swapped (writable_schema) for one
    that answers a lookup of checkout with payments' row: verify said intact while the app read
    the wrong statuses; SQLite's integrity check sees it."""
    path = tmp_path / "s.db"
    _history(seed, path).close()
    conn = _raw(path)
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
    _history(seed, path).close()
    conn = _raw(path)
    conn.execute("PRAGMA writable_schema = ON")
    conn.execute(
        "UPDATE sqlite_master SET sql = CAST(sql AS BLOB) WHERE name = 'audit_log_no_update'"
    )
    (version,) = conn.execute("PRAGMA schema_version").fetchone()
    conn.execute(f"PRAGMA schema_version = {version + 1}")
    conn.close()
    assert _first_break(StateStore.inspect(seed, path)) == (
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
    _history(seed, path).close()
    column = "name" if table == "services" else "id"
    _raw(path).execute(f"DELETE FROM {table} WHERE {column} = ?", (key,))
    store = StateStore.create(seed, path)
    action = "restart_service" if table == "services" else "resolve_incident"
    read = store.service_status if table == "services" else store.incident_status
    with pytest.raises(StoreError, match=f"{table} was changed outside the store"):
        read(key)
    with pytest.raises(StoreError, match=f"{table} was changed outside the store"):
        store.apply_write(action, key, **{**APPROVAL, "invocation_id": "e9"})
