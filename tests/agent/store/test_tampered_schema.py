"""A state store whose schema objects are not the ones this version creates -- a trigger added,
an index dropped -- is never written: an approved write through the real ADK runner is refused
with one message naming the object, the file is left byte for byte as it was (the added
trigger never runs), and `audit verify` still calls the store tampered."""

from __future__ import annotations

import sqlite3

import pytest
from write_calls import resolve_approved

from ops_copilot.store.state import StateStore
from ops_copilot.store.workspace import Workspace
from ops_eval.cli import main

# Runs on every approved resolution: quietly marks another service up.
EVIL = (
    "CREATE TRIGGER evil AFTER UPDATE ON incidents"
    " BEGIN UPDATE services SET status = 'operational' WHERE name = 'checkout'; END"
)
CHANGES = {
    "trigger-added": (EVIL, "trigger evil on incidents added"),
    "index-dropped": (
        "DROP INDEX audit_log_one_per_approval",
        "index audit_log_one_per_approval on audit_log dropped",
    ),
}


def _change(path, sql: str) -> None:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute(sql)
    conn.close()


@pytest.mark.parametrize("when", ["before-opening", "after-opening"])
@pytest.mark.parametrize("change", sorted(CHANGES))
def test_an_approved_write_to_a_store_with_changed_schema_is_refused_untouched(
    seed, tmp_path, capsys, change, when
):
    """`after-opening`: the change lands while a process (`adk web` with OPS_STATE_DB) holds
    the store open; the check runs in each write's own transaction, so it is caught too."""
    sql, says = CHANGES[change]
    path = tmp_path / "ops.db"
    StateStore.create(seed, path).close()
    if when == "before-opening":
        _change(path, sql)
    workspace = Workspace(seed=seed, store=StateStore.create(seed, path))
    if when == "after-opening":
        _change(path, sql)
    before = path.read_bytes()
    result = resolve_approved(workspace)
    assert (result["status"], result["reason"]) == ("refused", "store_refused"), result
    assert result["message"] == (
        f"{path}: its schema is not the one this version creates ({says}); nothing was written"
        " (check it with `ops-eval audit verify`)"
    )
    assert path.read_bytes() == before  # nothing written, and the trigger never ran
    assert workspace.store.incident_status("INC-002") == "open"
    assert workspace.store.service_status("checkout") == seed.services["checkout"].status
    workspace.store.close()
    capsys.readouterr()
    assert main(["audit", "verify", str(path)]) == 1
    assert "schema" in capsys.readouterr().out


def test_sqlites_statistics_tables_do_not_stop_a_write(seed, tmp_path):
    """ANALYZE adds sqlite_stat1 (and maybe sqlite_stat4); `audit verify` passes them, and so
    does a write: one definition of the objects the store is made of."""
    path = tmp_path / "ops.db"
    StateStore.create(seed, path).close()
    _change(path, "ANALYZE")
    workspace = Workspace(seed=seed, store=StateStore.create(seed, path))
    assert resolve_approved(workspace)["status"] == "ok"
    assert workspace.store.verify().ok
