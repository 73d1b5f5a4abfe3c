"""`ops-eval audit verify [DB]`: exit 0 intact, 1 tampered (naming the first broken row and the
kind), 2 when there is no store to check. Driven through `ops-eval`'s own `main`, and once as the
installed command in a fresh process to see the exit code and that no traceback escapes."""

from __future__ import annotations

import os
import re
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from ops_copilot.store.audit_chain import tick
from ops_copilot.store.state import StateStore
from ops_eval.cli import main

APPROVAL = dict(approver="alice", rationale="config reverted", session_id="s1", invocation_id="e1")


def verify(*argv: str) -> int:
    return main(["audit", "verify", *argv])


@pytest.fixture
def store_file(seed, tmp_path):
    path = tmp_path / "ops.db"
    store = StateStore.create(seed, path)
    store.apply_write("restart_service", "inventory", **APPROVAL)
    store.add_note("INC-002", "pods OOMKilled", "s1", "e2")
    store.close()
    return path


def test_an_intact_store_passes(store_file, capsys):
    assert verify(str(store_file)) == 0
    out, err = capsys.readouterr()
    ok, head = out.splitlines()
    assert ok == "ok: 1 audit rows, 1 notes, chain intact, statuses explained" and err == ""
    assert re.fullmatch(r"head: 1-1-[0-9a-f]{64}", head)


def test_the_store_defaults_to_ops_state_db(store_file, ops_env, capsys):
    ops_env.setenv("OPS_STATE_DB", str(store_file))
    assert verify() == 0
    assert capsys.readouterr().out.startswith("ok: 1 audit rows")


def test_no_store_given_or_configured_is_bad_input(ops_env, capsys):
    ops_env.delenv("OPS_STATE_DB")
    assert verify() == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "OPS_STATE_DB" in err


def test_a_tampered_store_fails_naming_the_row_and_the_kind(store_file, capsys):
    conn = sqlite3.connect(store_file, isolation_level=None)
    conn.execute("DROP TRIGGER audit_log_no_update")
    conn.execute("UPDATE audit_log SET approver = 'mallory' WHERE id = 1")
    assert verify(str(store_file)) == 1
    out, _ = capsys.readouterr()
    assert out.count("\n") == 1
    assert "schema" in out and "audit_log_no_update" in out  # the first thing broken
    conn.execute(
        "CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log"
        " BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END"
    )
    assert verify(str(store_file)) == 1
    out, _ = capsys.readouterr()
    assert out.count("\n") == 1 and "audit_log row 1" in out and "altered" in out


def test_a_status_changed_without_an_audit_row_fails(store_file, capsys):
    sqlite3.connect(store_file, isolation_level=None).execute(
        "UPDATE services SET status = 'down' WHERE name = 'checkout'"
    )
    assert verify(str(store_file)) == 1
    out, _ = capsys.readouterr()
    assert "checkout" in out and "unexplained_status" in out


def _junk(tmp_path, kind: str):
    if kind == "missing":
        return tmp_path / "nope.db"
    if kind == "folder":
        return tmp_path
    path = tmp_path / f"{kind}.db"
    if kind == "text":
        path.write_text("not sqlite at all, just text " * 100)
    elif kind == "empty":
        path.touch()
    elif kind == "other-sqlite":
        conn = sqlite3.connect(path)
        conn.execute("CREATE TABLE t (x)")
        conn.commit()
        conn.close()
    elif kind == "fifo":
        os.mkfifo(path)  # opening it to read would block until a writer came
    elif kind == "device":
        path.symlink_to("/dev/zero")
    elif kind == "older-store":
        conn = sqlite3.connect(path)
        conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        conn.execute("INSERT INTO meta VALUES ('seed_digest', 'x')")
        conn.commit()
        conn.close()
    return path


@pytest.mark.parametrize(
    ("kind", "says"),
    [
        ("missing", "no such file"),
        ("folder", "is a folder"),
        ("text", "not a state store"),
        ("empty", "not a state store"),
        ("other-sqlite", "not a state store"),
        ("older-store", "older version"),
        ("fifo", "is not a regular file"),
        ("device", "is not a regular file"),
    ],
)
def test_a_file_that_is_not_a_store_is_bad_input(tmp_path, capsys, kind, says):
    path = _junk(tmp_path, kind)

    def expire(signum, frame):
        raise TimeoutError("verify blocked opening the file")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(10)  # a blocking open fails the test instead of hanging it
    try:
        code = verify(str(path))
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert code == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and says in err and str(path) in err
    if kind == "missing":
        assert not path.exists()  # checking never creates a store


def test_verify_from_a_fresh_process(store_file, tmp_path):
    """The exit codes as a shell sees them, and one line on stderr, never a traceback."""

    def run(*argv: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [str(Path(sys.executable).with_name("ops-eval")), "audit", "verify", *argv],
            capture_output=True,
            text=True,
            timeout=120,
        )

    ok = run(str(store_file))
    assert (ok.returncode, ok.stderr) == (0, "")
    bad = run(str(tmp_path))
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert bad.stderr.count("\n") == 1


# -- values SQLite lets through, its own tables, and truncation against a kept head ------------


def _head(capsys) -> str:
    return capsys.readouterr().out.splitlines()[-1].removeprefix("head: ")


def _untriggered(path, *statements: str, args=()) -> None:
    """Run statements with every trigger dropped, then put the triggers back as they were."""
    conn = sqlite3.connect(path, isolation_level=None)
    saved = conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'trigger'").fetchall()
    for name, _ in saved:
        conn.execute(f"DROP TRIGGER {name}")
    for sql, values in zip(statements, args or [()] * len(statements), strict=True):
        conn.execute(sql, values)
    for _, sql in saved:
        conn.execute(sql)
    conn.close()


@pytest.mark.parametrize(
    ("sql", "says"),
    [
        (
            "UPDATE meta SET value = X'3a41' WHERE key = 'head:audit_log'",
            "meta head:audit_log: altered (a blob, not text)",
        ),
        ("UPDATE meta SET value = X'41' WHERE key = 'clock'", "meta clock: altered (a blob"),
        ("DELETE FROM meta WHERE key = 'clock'", "meta clock: deleted (the key is missing)"),
        (
            "UPDATE audit_log SET approver = X'41' WHERE id = 1",
            "audit_log row 1: altered (approver is a blob, not text)",
        ),
    ],
    ids=["blob-head", "blob-clock", "clock-deleted", "blob-in-audit-row"],
)
def test_a_value_sqlite_let_through_is_tampering_in_one_line(store_file, capsys, sql, says):
    _untriggered(store_file, sql)
    assert verify(str(store_file)) == 1
    out, err = capsys.readouterr()
    assert out.startswith(f"tampered: {store_file}: {says}"), out
    assert out.count("\n") == 1 and err == ""


def test_analyze_is_not_tampering(store_file, capsys):
    sqlite3.connect(store_file, isolation_level=None).execute("ANALYZE")
    assert verify(str(store_file)) == 0
    assert capsys.readouterr().out.startswith("ok: ")


def _truncate_last_write(path, seed) -> None:
    """Delete the last audit row with head, clock and status moved back to match."""
    conn = sqlite3.connect(path, isolation_level=None)
    first = conn.execute("SELECT row_hash FROM audit_log WHERE id = 1").fetchone()[0]
    clock = conn.execute("SELECT value FROM meta WHERE key = 'clock'").fetchone()[0]
    conn.close()
    _untriggered(
        path,
        "DELETE FROM audit_log WHERE id = 2",
        "UPDATE meta SET value = ? WHERE key = 'head:audit_log'",
        "UPDATE meta SET value = ? WHERE key = 'clock'",
        "UPDATE services SET status = ?, updated_at = NULL WHERE name = 'checkout'",
        args=[(), (f"1:{first}",), (tick(clock, -1),), (seed.services["checkout"].status,)],
    )


def test_a_truncation_is_caught_against_the_head_kept_from_an_earlier_verify(
    seed, store_file, capsys
):
    store = StateStore.create(seed, store_file)
    store.apply_write("restart_service", "checkout", **{**APPROVAL, "invocation_id": "e3"})
    store.close()
    assert verify(str(store_file)) == 0
    kept = _head(capsys)
    assert verify(str(store_file), "--expect-head", kept) == 0
    assert capsys.readouterr().out.startswith("ok: 2 audit rows")

    _truncate_last_write(store_file, seed)
    assert verify(str(store_file)) == 0  # from the file alone: docs/approvals.md says so
    now = _head(capsys)
    assert verify(str(store_file), "--expect-head", kept) == 1
    out, err = capsys.readouterr()
    assert out == (
        f"tampered: {store_file}: audit_log/notes: rewound (truncated or rewound: head is {now},"
        f" expected {kept} or a head that extends it)\n"
    )


def test_a_head_kept_before_later_writes_still_verifies(seed, store_file, capsys):
    assert verify(str(store_file)) == 0
    kept = _head(capsys)
    store = StateStore.create(seed, store_file)
    store.add_note("INC-002", "later", "s1", "e9")
    store.close()
    assert verify(str(store_file), "--expect-head", kept) == 0


@pytest.mark.parametrize("head", ["", "abc", "1-1-xyz", "1-1-" + "0" * 63])
def test_a_malformed_expected_head_is_bad_input(store_file, capsys, head):
    assert verify(str(store_file), "--expect-head", head) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "--expect-head" in err
