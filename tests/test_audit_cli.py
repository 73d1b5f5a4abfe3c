"""`ops-eval audit verify [DB]`: exit 0 intact, 1 tampered (naming the first broken row and the
kind), 2 when there is no store to check. Driven through `ops-eval`'s own `main`, and once as the
installed command in a fresh process to see the exit code and that no traceback escapes."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from ops_copilot.store import StateStore
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
    assert out == "ok: 1 audit rows, 1 notes, chain intact, statuses explained\n" and err == ""


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
    ],
)
def test_a_file_that_is_not_a_store_is_bad_input(tmp_path, capsys, kind, says):
    path = _junk(tmp_path, kind)
    assert verify(str(path)) == 2
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
