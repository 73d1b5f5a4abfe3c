"""Judge verdicts remembered by what decided them, so a rerun over the same answers asks
nothing and costs nothing.

The key is the sha256 of the judge's pin (model and weights as far as they are known), the
prompt's version (derived from its text) and the exact messages: a different model, prompt or
answer is a different question. Only valid, kept verdicts are stored (the analysis is not);
an error -- unreachable, malformed, over budget -- is never cached, so the next run asks again.
SQLite, one short connection per operation, so concurrent trials may share it.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path
from typing import Any

from ..base.exits import EXIT_BAD_INPUT, OpsEvalError

_SCHEMA = """CREATE TABLE IF NOT EXISTS verdicts (
    key TEXT PRIMARY KEY, pin TEXT NOT NULL, prompt_version TEXT NOT NULL,
    kept TEXT NOT NULL, tokens INTEGER NOT NULL, created TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP
)"""


def cache_key(pin: str, prompt_version: str, messages: list[dict[str, str]]) -> str:
    shown = json.dumps([pin, prompt_version, messages], sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(shown.encode()).hexdigest()


class VerdictCache:
    """Kept verdicts by key, in one SQLite file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with self._connect() as db:
                db.execute(_SCHEMA)
        except (OSError, sqlite3.Error) as exc:
            raise OpsEvalError(
                EXIT_BAD_INPUT, f"judge cache {path}: cannot be opened as SQLite ({exc})"
            ) from None

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path, timeout=30)

    def get(self, key: str, pin: str, prompt_version: str) -> dict[str, Any] | None:
        """The kept verdict stored under `key` for this pin and prompt version; None -- a miss,
        asked again -- for anything else: no row, a row another judge or prompt wrote, a row
        that is not JSON, a file that stopped being a readable cache. A cache is a convenience,
        never a source of verdicts it cannot vouch for (calibration never reads it)."""
        try:
            with self._connect() as db:
                row = db.execute(
                    "SELECT kept, pin, prompt_version FROM verdicts WHERE key = ?", (key,)
                ).fetchone()
        except sqlite3.Error:
            return None
        if row is None or (row[1], row[2]) != (pin, prompt_version):
            return None
        try:
            kept = json.loads(row[0])
        except (TypeError, ValueError):
            return None
        return kept if isinstance(kept, dict) else None

    def put(self, key: str, pin: str, prompt_version: str, kept: dict[str, Any], tokens: int):
        """Remember a valid verdict; a cache that cannot be written is skipped, not fatal. Never
        under a minimal-data run: the verdict's rationale is text about the answer."""
        from ..base.data_policy import refuse_text

        refuse_text("judge cache", "a cached verdict keeps the judge's rationale")
        try:
            with self._connect() as db:
                db.execute(
                    "INSERT OR REPLACE INTO verdicts (key, pin, prompt_version, kept, tokens) "
                    "VALUES (?, ?, ?, ?, ?)",
                    (key, pin, prompt_version, json.dumps(kept, sort_keys=True), tokens),
                )
        except sqlite3.Error:
            pass

    def __len__(self) -> int:
        with self._connect() as db:
            return int(db.execute("SELECT COUNT(*) FROM verdicts").fetchone()[0])
