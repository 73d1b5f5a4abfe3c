"""Truncation: a consistent rewind of the audit log is invisible in the file alone and caught
against a kept anchor; an anchor still verifies after later writes, and one whose rows were
rewritten is caught."""

from __future__ import annotations

import sqlite3

import pytest
from store_attacks import APPROVAL, history, raw, triggers_dropped

from ops_copilot.store.state import StateStore


def _rewind_last_write(conn: sqlite3.Connection, seed) -> None:
    """Delete the last audit row and roll back everything that would give it away: head, clock
    and the status it changed -- a consistent truncation."""
    from ops_copilot.store.audit_chain import tick

    with triggers_dropped(conn):
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

    with triggers_dropped(conn):
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
    store = history(seed, path)
    kept = store.verify().head
    rewind(raw(path), seed)
    assert store.verify().ok  # the file alone cannot tell: documented in docs/approvals.md
    verdict = store.verify(expect=kept)
    assert verdict.first is not None and verdict.first.kind == "rewound", verdict
    assert f"head is {verdict.head}, expected {kept}" in verdict.first.detail


def test_an_anchor_still_verifies_after_later_writes(seed, tmp_path):
    store = history(seed, tmp_path / "s.db")
    kept = store.verify().head
    store.add_note("INC-002", "a later note", "s1", "e4")
    store.apply_write("restart_service", "checkout", **{**APPROVAL, "invocation_id": "e5"})
    verdict = store.verify(expect=kept)
    assert verdict.ok and verdict.head != kept


def test_an_anchor_whose_rows_were_rewritten_is_caught(seed, tmp_path):
    """Truncate and re-append as many rows: the counts match the anchor, the hashes do not."""
    path = tmp_path / "s.db"
    store = history(seed, path)
    kept = store.verify().head
    _wipe(raw(path), seed)
    again = StateStore.create(seed, path)
    again.apply_write("restart_service", "inventory", **{**APPROVAL, "rationale": "other words"})
    again.add_note("INC-002", "pods OOMKilled after the deploy", "s1", "e2")
    again.apply_write("resolve_incident", "INC-002", **{**APPROVAL, "invocation_id": "e3"})
    assert again.verify().ok
    first = again.verify(expect=kept).first
    assert first is not None and first.kind == "rewound"
