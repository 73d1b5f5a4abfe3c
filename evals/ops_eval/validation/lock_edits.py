"""The only ways a set's lock changes (`ops-eval cases`): new cases locked at version 1
(`lock_sets`), a corrected case given the next version (`bump_cases`), and a distilled draft's
line (`draft_lock`, `add_draft_line`); and the lock read back, case by case (`case_rows`).

A version, once locked, is never rewritten: `lock_sets` refuses a case whose content changed
(that is `bump_cases`' work, with a reason), and `bump_cases` refuses a case that did not
change. Each command is checked whole before anything is written: one refusal and no lock is
written at all, so a lock never holds half of what was asked. A line whose case left its set is
kept, as history (`case_locks` says why).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ..agents.ops_world import closest
from ..base.exits import EXIT_FAILED, EXIT_OK
from ..base.inputs import bad_input
from ..base.settings import current
from ..core.case_lock import CaseLock, LockedCase, LockError, lock_path, lock_text, read_lock
from ..core.case_version import case_hashes
from ..core.evalset import EvalSetFile, MalformedInput, display_path, read_evalset
from .case_locks import bump_hint, is_draft, lock_hint, lockable, short
from .discovery import discover

FIRST = "first version"  # the reason of a case locked by `lock_sets`


@dataclass
class Outcome:
    """What a command did (one line per lock written), or what it refused (one line per case;
    then nothing was written)."""

    done: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    refusal: str = "case(s) refused: no lock was written"  # after their count, on stderr

    @property
    def code(self) -> int:
        return EXIT_FAILED if self.refused else EXIT_OK


def read_set(path: Path) -> EvalSetFile:
    """The set at `path`; exit 2 when it cannot be read."""
    try:
        return read_evalset(path)
    except MalformedInput as exc:
        raise bad_input(str(exc)) from None


def read_set_lock(es: EvalSetFile) -> CaseLock | None:
    """The set's lock (None: it has none); exit 2 when it cannot be read."""
    try:
        return read_lock(es.path)
    except LockError as exc:
        raise bad_input(str(exc)) from None


def write_lock(set_path: Path, lock: CaseLock) -> Path:
    """The lock written beside the set, whole or not at all (a temporary file renamed)."""
    import os
    import tempfile

    target = lock_path(set_path)
    fd, temporary = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(lock_text(lock))
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return target


def _sets(paths: Iterable[str | Path]) -> list[EvalSetFile]:
    files = discover(paths, current().evals_dir)
    if not files:
        raise bad_input("no *.evalset.json files here: nothing to lock")
    return [read_set(path) for path in files]


def lock_sets(paths: Iterable[str | Path]) -> Outcome:
    """Every case not in its set's lock added at version 1 ("first version"), a reviewed
    draft's line pinned at its version; a case changed since its version refused."""
    out, pending = Outcome(), []
    for es in _sets(paths):
        lock = read_set_lock(es)
        lines = dict(lock.cases) if lock is not None else {}
        hashes, added, pinned = case_hashes(es), [], []
        for case in lockable(es):
            sha, line = hashes[case.eval_id], lines.get(case.eval_id)
            if line is None:
                lines[case.eval_id] = LockedCase(
                    version=1, sha256=sha, reason=FIRST, draft=is_draft(case)
                )
                added.append(case.eval_id)
            elif line.draft and (line.sha256 != sha or not is_draft(case)):
                lines[case.eval_id] = line.model_copy(
                    update={"sha256": sha, "draft": is_draft(case)}
                )
                pinned.append(case.eval_id)
            elif not line.draft and line.sha256 != sha:
                out.refused.append(
                    f"{es.display}: case {case.eval_id}: changed since version {line.version} "
                    f"(sha256 {short(line.sha256)}): a locked version is never rewritten; "
                    f"correct it with a new version: {bump_hint(es, case.eval_id)}"
                )
        shown = display_path(lock_path(es.path))
        said = [f"{len(added)} new case(s) at version 1: {', '.join(added)}"] if added else []
        said += [f"reviewed draft(s) pinned: {', '.join(pinned)}"] if pinned else []
        if said or lock is None:
            pending.append((es.path, CaseLock(cases=lines)))
        out.done.append(f"{shown}: {'; '.join(said) or f'up to date ({len(lines)} lines)'}")
    if out.refused:
        out.done = []
        return out
    for path, lock in pending:
        write_lock(path, lock)
    return out


def _holder(case_id: str, sets: list[EvalSetFile]) -> EvalSetFile:
    """The one set holding `case_id`; exit 2 naming the closest id, or asking for --set."""
    holding = [es for es in sets if any(c.eval_id == case_id for c in es.cases)]
    if len(holding) > 1:
        shown = " and ".join(es.display for es in holding)
        raise bad_input(f"case {case_id}: in {shown}; name one with --set")
    if not holding:
        near = closest(case_id, (c.eval_id for es in sets for c in es.cases))
        hint = f"; did you mean {near}?" if near else ""
        raise bad_input(f"case {case_id}: not in {', '.join(es.display for es in sets)}{hint}")
    return holding[0]


def bump_cases(ids: list[str], reason: str, set_path: str | None = None) -> Outcome:
    """Each case in `ids` at its next version, with its new hash and `reason`; refused: an
    empty reason or an unknown id (exit 2), a case not locked yet, a draft's, or unchanged."""
    reason = " ".join(reason.split())
    if not reason:
        raise bad_input("--reason: empty; say why this version was minted (the lock keeps it)")
    sets = [read_set(Path(set_path))] if set_path else _sets([])
    holders = {case_id: _holder(case_id, sets) for case_id in dict.fromkeys(ids)}
    out, pending, hashes = Outcome(), {}, {}
    for case_id, es in holders.items():
        lock = pending.get(es.path) or read_set_lock(es)
        line = lock.cases.get(case_id) if lock is not None else None
        if es.path not in hashes:  # every case of a set is hashed once, however many are bumped
            hashes[es.path] = case_hashes(es)
        sha = hashes[es.path][case_id]
        if line is None or line.draft:
            why = "not locked yet: run" if line is None else "a draft's line: review it, then run"
            out.refused.append(f"{es.display}: case {case_id}: {why} {lock_hint(es)}")
        elif line.sha256 == sha:
            out.refused.append(
                f"{es.display}: case {case_id}: unchanged since version {line.version}: a new "
                "version is for a corrected case; edit it first"
            )
        else:
            assert lock is not None
            bumped = LockedCase(version=line.version + 1, sha256=sha, reason=reason)
            pending[es.path] = CaseLock(cases={**lock.cases, case_id: bumped})
            out.done.append(
                f"{display_path(lock_path(es.path))}: case {case_id}: version {bumped.version} "
                f"(sha256 {short(sha)}): {reason}"
            )
    if out.refused:
        out.done = []
        return out
    for path, lock in pending.items():
        write_lock(path, lock)
    return out


def case_rows(paths: Iterable[str | Path]) -> list[str]:
    """One line per case of each set: its version and reason, or why it has none (edited in
    place, not locked); and each line kept for a case no longer in the set."""
    rows = []
    for es in _sets(paths):
        lock = read_set_lock(es) or CaseLock()
        hashes = case_hashes(es)
        rows.append(f"{es.display} ({display_path(lock_path(es.path))})")
        for case_id, sha in hashes.items():
            line = lock.cases.get(case_id)
            if line is None:
                rows.append(f"  {case_id}: not locked")
            elif line.sha256 != sha and not line.draft:
                rows.append(f"  {case_id}: edited in place since version {line.version}")
            else:
                draft = " (a draft's line)" if line.draft else ""
                rows.append(f"  {case_id}: version {line.version}{draft}: {line.reason}")
        for case_id, line in sorted(lock.cases.items()):
            if case_id not in hashes:
                rows.append(f"  {case_id}: version {line.version}, no longer in the set (history)")
    return rows


def draft_lock(target: Path, eval_id: str) -> CaseLock | None:
    """The lock a draft `eval_id` will be added to, checked before the set is written: a new
    set's (empty), or the set's own, refused (exit 2) when it already has a line for the id (a
    case of that id once was: its versions go on, so the draft needs another id). None for a
    set that exists with no lock: it stays unversioned until `ops-eval cases lock`."""
    if not target.exists():
        return CaseLock()
    try:
        lock = read_lock(target)
    except LockError as exc:
        raise bad_input(str(exc)) from None
    if lock is not None and eval_id in lock.cases:
        line = lock.cases[eval_id]
        raise bad_input(
            f"{display_path(lock_path(target))}: already has case {eval_id} (version "
            f"{line.version}); give another --id"
        )
    return lock


def add_draft_line(target: Path, lock: CaseLock, eval_id: str, reason: str) -> Path:
    """The draft's line (version 1, a draft's) added to `lock`, beside the set just written."""
    es = read_set(target)
    line = LockedCase(version=1, sha256=case_hashes(es)[eval_id], reason=reason, draft=True)
    return write_lock(target, CaseLock(cases={**lock.cases, eval_id: line}))
