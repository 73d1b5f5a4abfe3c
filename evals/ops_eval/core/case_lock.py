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
    draft: bool = False
    """A draft's line (`ops-eval distill`): no run plays a draft (the validator refuses it), so
    no verdict names this content, and `ops-eval cases lock` pins the reviewed case in its
    place at the same version, keeping the reason (where it was distilled from)."""


class CaseLock(Strict):
    format: int = FORMAT
    cases: dict[str, LockedCase] = Field(default_factory=dict)


class LockError(ValueError):
    """A lock file that cannot be read: one line naming the file (`file`, as messages show it)
    and what is wrong (`message`)."""

    def __init__(self, file: str, message: str) -> None:
        super().__init__(f"{file}: {message}")
        self.file = file
        self.message = message


def lock_path(set_path: Path) -> Path:
    """The lock of the set at `set_path`: beside its file -- a link's target, so the links the
    dev UI lists beside an agent (`agents/ops_copilot/ops.evalset.json`) share evals/'s locks."""
    real = set_path.resolve() if set_path.is_symlink() else set_path
    return real.with_name(real.name.removesuffix(".json") + SUFFIX)


def read_lock(set_path: Path) -> CaseLock | None:
    """The set's lock; None when it has none; `LockError` when it cannot be read."""
    from opskit.textfiles import TextFileError, read_text, shown

    path = lock_path(set_path)
    if not path.exists():
        return None
    try:
        return parse_lock(read_text(path), shown(path))
    except TextFileError as exc:
        raise LockError(shown(path), str(exc)) from None


def parse_lock(text: str, file: str) -> CaseLock:
    """A lock's text (a file's, or one as it was at a git ref); `LockError` naming `file`."""
    try:
        return CaseLock.model_validate_json(text)
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(map(str, error["loc"])) or "(top level)"
        raise LockError(file, f"{where}: {error['msg']}") from None


def lock_text(lock: CaseLock) -> str:
    """The lock as it is written: cases in id order, one stable spelling (diffs stay small)."""
    data = lock.model_dump(mode="json")
    for line in data["cases"].values():
        if not line["draft"]:  # written only where it is true: a reviewed line is plain
            del line["draft"]
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
