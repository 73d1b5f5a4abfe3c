"""The state store: seeded state, audited writes applied atomically and at most once, an
append-only audit log, isolated stores, and a file store that persists, refuses another
seed's file and a file that is not a store."""

from __future__ import annotations

import sqlite3

import pytest
from store_attacks import APPROVAL

from ops_copilot.seed.loading import load_seed
from ops_copilot.store.state import StateStore, StoreError


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
