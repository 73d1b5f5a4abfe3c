"""`ops-eval cases check --against REF`: CI's check that the locks only grew since REF (on a
pull request, its merge base).

The validator compares a case with its lock line as they are now, so a case edited together
with its lock line -- the line's hash rewritten at the same version -- passes it. Only history
tells that apart from a correction, so this reads each set's lock as it was at REF (`git show
REF:path`) and refuses: a line whose hash changed while its version did not go up (a draft's
line excepted: no verdict names a draft), a version that went down, and a line that was removed
(lines stay, as the history of the versions runs name). It also holds each set to its lock as it
is now (`case_locks`, with a set that has no lock refused wherever it is).
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterable, Iterator
from pathlib import Path

from ..base.exits import EXIT_INFRA, OpsEvalError
from ..base.inputs import bad_input
from ..base.settings import current
from ..core.case_lock import CaseLock, LockError, lock_path, parse_lock, read_lock
from ..core.evalset import EvalSetFile, display_path
from .case_locks import bump_hint, lock_problems, short
from .discovery import discover
from .lock_edits import Outcome, read_set


def _git(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            ["git", "-C", str(folder), *args], capture_output=True, text=True, check=False
        )
    except OSError as exc:  # no git on this machine: the check cannot run, nothing is wrong
        raise OpsEvalError(EXIT_INFRA, f"git: cannot run ({exc.strerror})") from None


def _verify(ref: str, folder: Path) -> None:
    """`ref` names a commit of the repository `folder` is in; exit 2 otherwise."""
    if ref.startswith("-"):
        raise bad_input(f"--against {ref}: not a git revision")
    found = _git(folder, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
    if found.returncode != 0:
        said = found.stderr.strip().splitlines()
        why = f" ({said[-1]})" if said else ""
        raise bad_input(f"--against {ref}: not a commit of the repository at {folder}{why}")


def lock_at(ref: str, set_path: Path) -> CaseLock | None:
    """The set's lock as it was at `ref` (None: there was none); exit 2 when it was unreadable."""
    path = lock_path(set_path)
    shown = f"{ref}:{display_path(path)}"
    if _git(path.parent, "cat-file", "-e", f"{ref}:./{path.name}").returncode != 0:
        return None
    text = _git(path.parent, "show", f"{ref}:./{path.name}")
    if text.returncode != 0:
        raise bad_input(f"{shown}: cannot be read ({text.stderr.strip()})")
    try:
        return parse_lock(text.stdout, shown)
    except LockError as exc:
        raise bad_input(str(exc)) from None


def _changes(es: EvalSetFile, ref: str, before: CaseLock, now: CaseLock) -> Iterator[str]:
    """Each line of `before` against `now` (see the module's docstring)."""
    for case_id, old in sorted(before.cases.items()):
        new = now.cases.get(case_id)
        where = f"{es.display}: case {case_id}"
        if new is None:
            yield (
                f"{where}: its lock line (version {old.version} at {ref}) was removed; lines "
                "stay, as the history of the versions runs name"
            )
        elif new.version < old.version:
            yield f"{where}: its version went down, from {old.version} at {ref} to {new.version}"
        elif new.version == old.version and new.sha256 != old.sha256 and not old.draft:
            yield (
                f"{where}: changed since {ref} (sha256 {short(old.sha256)} -> "
                f"{short(new.sha256)}) but still version {new.version}: a version is never "
                f"rewritten; correct it with a new version: {bump_hint(es, case_id)}"
            )


def check_against(ref: str, paths: Iterable[str | Path] = ()) -> Outcome:
    """Every set (default: the project's) against its lock now and its lock at `ref`."""
    files = discover(paths, current().evals_dir)
    if not files:
        raise bad_input("no *.evalset.json files here: nothing to check")
    sets = [read_set(path) for path in files]
    for folder in dict.fromkeys(es.path.parent for es in sets):
        _verify(ref, folder)
    out, warnings = Outcome(refusal="problem(s) with the case versions"), []
    for problem in lock_problems(sets, warnings, strict=True):
        if problem.malformed:
            raise bad_input(problem.render())
        out.refused.append(problem.render())
    for es in sets:
        before, now = lock_at(ref, es.path), read_lock(es.path)  # readable: refused above
        if before is not None and now is not None:
            out.refused += _changes(es, ref, before, now)
    cases = sum(len(es.cases) for es in sets)
    if not out.refused:
        out.done.append(
            f"ok: {len(sets)} set(s), {cases} cases: each case is its lock line's, and every "
            f"line changed since {ref} has a new version"
        )
    return out
