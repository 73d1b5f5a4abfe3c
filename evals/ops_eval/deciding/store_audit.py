"""A state store file verified (`ops-eval audit verify [DB]`): does it still tell the truth?

Checks, read-only, what `ops_copilot.store.audit_chain.verify` checks: the append-only triggers and
tables are as the store made them, the audit log and notes hash chains are intact up to the
recorded heads, every row's time is a tick of the store's clock, and every service and incident
status is what the seed and the audit rows, replayed in order, produce. DB defaults to
OPS_STATE_DB.

On success it prints the store's head (`head: <audit rows>-<notes>-<hash>`). Kept outside the
file, that head is what catches what the file alone cannot show -- its newest rows deleted with
head, clock and statuses moved back to match: `--expect-head HEAD` exits 1 unless the ledgers
still extend HEAD (later writes are fine).

Exit codes: 0 intact; 1 tampered (one line naming the first broken row, or the target, meta key
or schema object, and the kind), or truncated or rewound against `--expect-head`; 2 no store
given, a malformed `--expect-head`, or the file is missing, a folder, unreadable, not SQLite,
not a store, from an older version or another seed; 3 the store could not be read to the end
(locked, I/O error).
"""

from __future__ import annotations

from ..base.exits import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_INFRA, EXIT_OK, OpsEvalError


def verify_store(db: str | None, expect_head: str | None = None) -> tuple[int, list[str]]:
    """Verify the store at `db` (else OPS_STATE_DB), against `expect_head` when given: (the exit
    code, 0 intact or 1 tampered; the lines to print: the verdict, and the head to keep when
    intact); OpsEvalError (exit 2 or 3) when the store cannot be verified."""
    import sqlite3

    from ..agents.ops_state import StateStore, StoreError, parse_anchor
    from ..agents.ops_world import SeedError, default_seed
    from ..agents.project import current

    if expect_head is not None:
        try:
            parse_anchor(expect_head)
        except ValueError as exc:
            raise OpsEvalError(EXIT_BAD_INPUT, f"--expect-head: {exc}") from None
    path = db or current().state_db
    if not path:
        raise OpsEvalError(EXIT_BAD_INPUT, "no state store to verify: give DB or set OPS_STATE_DB")
    try:
        store = StateStore.inspect(default_seed(), path)
    except (StoreError, SeedError) as exc:
        raise OpsEvalError(EXIT_BAD_INPUT, str(exc)) from None
    try:
        verdict = store.verify(expect_head)
    except sqlite3.OperationalError as exc:
        raise OpsEvalError(
            EXIT_INFRA, f"{path}: cannot read the store to the end ({exc})"
        ) from None
    except sqlite3.DatabaseError as exc:
        problem = f"{path}: not a readable state store ({exc})"
        raise OpsEvalError(EXIT_BAD_INPUT, problem) from None
    finally:
        store.close()
    if verdict.first is not None:
        return EXIT_FAILED, [f"tampered: {path}: {verdict.first}"]
    extends = ", extends the expected head" if expect_head is not None else ""
    return EXIT_OK, [
        f"ok: {verdict.audit_rows} audit rows, {verdict.notes} notes, chain intact, "
        f"statuses explained{extends}",
        f"head: {verdict.head}",
    ]
