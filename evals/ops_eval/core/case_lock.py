"""The set's lock: each case's version and content hash, in a small file beside the set.

`ops.evalset.json`'s lock is `ops.evalset.lock.json`:

    {"format": 1, "cases": {"service-status-inventory":
        {"version": 2, "sha256": "e999...", "reason": "the reference now names the owner"}}}

A case's hash is `case_version.case_sha256` (what decides its verdict). The lock changes only by
an explicit command (`ops-eval cases lock` for new cases at version 1, `ops-eval cases bump ID
--reason` for a corrected one), so "correcting a case mints a new version" is enforced: the
validator refuses a case whose hash is not its lock line's. A run records each trial's case
version and hash, so a verdict names the exact case it came from, and two runs are compared on
the cases whose hashes match in both.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import Field, ValidationError

from ..base.strict import Strict

if TYPE_CHECKING:
    from .evalset import EvalSetFile

FORMAT = 1
SUFFIX = ".lock.json"  # beside `<name>.evalset.json`: `<name>.evalset.lock.json`


class LockedCase(Strict):
    """One case's line: its version (from 1, up by one per correction), its content hash, and
    why this version was minted."""

    version: int = Field(ge=1)
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    reason: str = Field(min_length=1)


class CaseLock(Strict):
    format: int = FORMAT
    cases: dict[str, LockedCase] = Field(default_factory=dict)


class LockError(ValueError):
    """A lock file that cannot be read: one line naming the file and what is wrong."""


def lock_path(set_path: Path) -> Path:
    """The lock of the set at `set_path`."""
    return set_path.with_name(set_path.name.removesuffix(".json") + SUFFIX)


def read_lock(set_path: Path) -> CaseLock | None:
    """The set's lock; None when it has none; `LockError` when it cannot be read."""
    from opskit.textfiles import TextFileError, read_text

    path = lock_path(set_path)
    if not path.exists():
        return None
    try:
        return CaseLock.model_validate_json(read_text(path))
    except TextFileError as exc:
        raise LockError(f"{path.name}: {exc}") from None
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(map(str, error["loc"])) or "(top level)"
        raise LockError(f"{path.name}: {where}: {error['msg']}") from None


def lock_text(lock: CaseLock) -> str:
    """The lock as it is written: cases in id order, one stable spelling (diffs stay small)."""
    data = lock.model_dump(mode="json")
    data["cases"] = dict(sorted(data["cases"].items()))
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def versions(es: EvalSetFile) -> dict[str, tuple[int | None, str]]:
    """eval_id -> (its locked version when the lock holds this exact content, else None; its
    content hash), for every case of the set."""
    from .case_version import case_hashes

    try:
        lock = read_lock(es.path)
    except LockError:
        lock = None
    out: dict[str, tuple[int | None, str]] = {}
    for case_id, sha in case_hashes(es).items():
        line = lock.cases.get(case_id) if lock is not None else None
        out[case_id] = (line.version if line is not None and line.sha256 == sha else None, sha)
    return out
