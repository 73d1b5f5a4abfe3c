"""Two sessions sharing one state store file (`OPS_STATE_DB`), through the real ADK runner: a
write's precondition and the write itself are one transaction, so two approvals racing for
the same write cannot both apply it."""

from __future__ import annotations

import threading

from write_calls import resolve_approved

from ops_copilot.store.state import StateStore
from ops_copilot.store.workspace import Workspace


def test_two_sessions_approving_one_resolution_at_once_resolve_it_once(seed, tmp_path, monkeypatch):
    """Both sessions are held at the store's write until both have passed the tool's own
    checks -- the moment the race needs; before the fix both were told `ok` and the audit log
    kept a `resolved -> resolved` row."""
    path = tmp_path / "shared.db"
    StateStore.create(seed, path).close()
    both_checked = threading.Barrier(2, timeout=30)
    apply_write = StateStore.apply_write

    def when_both_checked(self, *args, **kwargs):
        both_checked.wait()
        return apply_write(self, *args, **kwargs)

    monkeypatch.setattr(StateStore, "apply_write", when_both_checked)
    workspaces = [Workspace(seed=seed, store=StateStore.create(seed, path)) for _ in range(2)]
    results: list[dict] = []
    errors: list[BaseException] = []

    def session(workspace: Workspace) -> None:
        try:
            results.append(resolve_approved(workspace))
        except BaseException as exc:  # reported below, not lost in the thread
            both_checked.abort()
            errors.append(exc)

    threads = [threading.Thread(target=session, args=(ws,)) for ws in workspaces]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not errors, errors
    assert sorted(r["status"] for r in results) == ["ok", "refused"], results
    (refused,) = [r for r in results if r["status"] == "refused"]
    assert refused["reason"] == "already_resolved" and "already resolved" in refused["message"]
    store = StateStore.create(seed, path)
    (row,) = store.audit_rows()
    assert (row.before_status, row.after_status) == ("open", "resolved")
    assert store.incident_status("INC-002") == "resolved" and store.verify().ok
