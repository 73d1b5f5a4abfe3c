"""The validator's rule over each set's lock (`core.case_lock`): a case is what its lock line
says it is, or it was edited in place.

Cases are append-only and immutable per version: correcting one mints a new version (`ops-eval
cases bump`), so the dataset behind any past verdict can be rebuilt from the lock's history.
Without this rule, editing a case in place is as easy as adding one. So, per set:

- a case whose content hash is not its lock line's is refused, naming the version it no longer
  is and the command that corrects it;
- a case with no line, in a set that has a lock, is refused: `ops-eval cases lock` adds it at
  version 1;
- a draft's line (`ops-eval distill`) binds nothing while the case is still a draft (the draft
  rule refuses it); once reviewed, the case is refused until `ops-eval cases lock` pins it;
- a line whose case left the set stays, as history: its id keeps counting versions, so a case
  added again under that id cannot restart at a version 1 some past verdict already names;
- a lock that cannot be read is malformed input (exit 2), one line;
- a set with no lock at all is refused in the project's evals/ (the shipped sets, whose
  verdicts are recorded and compared, are all locked), and warned about elsewhere: an ad-hoc
  set is checked as before, but a run of it cannot name its cases' versions.

Each problem is its own: the rules about a case's content still report theirs, so an edit that
plants a problem is shown both as that problem and as an edit without a new version.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence

from opskit.textfiles import resolved

from ..base.settings import current
from ..core.case_lock import CaseLock, LockError, lock_path, read_lock
from ..core.case_version import SHORT, case_hashes
from ..core.evalset import Case, EvalSetFile, display_path
from .problems import Problem

REASON = '"..."'  # the placeholder of a reason in a command a message suggests


def is_project_set(es: EvalSetFile) -> bool:
    """`es` is one of the project's own sets (in its evals/), which must be locked."""
    return resolved(es.path).parent == resolved(current().evals_dir)


def set_option(es: EvalSetFile) -> str:
    """` --set PATH` when a command must be told the set (one outside the project's evals/)."""
    return "" if is_project_set(es) else f" --set {es.display}"


def bump_hint(es: EvalSetFile, case_id: str) -> str:
    return f"ops-eval cases bump {case_id} --reason {REASON}{set_option(es)}"


def lock_hint(es: EvalSetFile) -> str:
    return "ops-eval cases lock" + ("" if is_project_set(es) else f" {es.display}")


def is_draft(case: Case) -> bool:
    """The case still carries `meta.draft` (what `ops-eval distill` marks)."""
    return isinstance(case.raw_meta, dict) and case.raw_meta.get("draft") is not None


def lockable(es: EvalSetFile) -> list[Case]:
    """The cases a lock can name: those with an id of their own, given once (the validator
    reports a missing or repeated id on its own)."""
    ids = Counter(c.eval_id for c in es.cases)
    return [c for c in es.cases if c.declared_id == c.eval_id and ids[c.eval_id] == 1]


def short(sha: str) -> str:
    return sha[:SHORT] + "…"


def case_problems(es: EvalSetFile, lock: CaseLock) -> Iterator[Problem]:
    """Each case of `es` against its line in `lock` (see the module's docstring)."""
    hashes = case_hashes(es)
    name = lock_path(es.path).name
    for case in lockable(es):
        line = lock.cases.get(case.eval_id)
        where = {"case": case.eval_id, "line": es.case_lines.get(case.eval_id)}
        if line is None:
            message = (
                f"not in the lock ({name}): a new case is locked at version 1; run {lock_hint(es)}"
            )
        elif line.draft and not is_draft(case):
            message = (
                f"reviewed since it was distilled: its lock line is the draft's; pin the "
                f"reviewed case as version {line.version}: {lock_hint(es)}"
            )
        elif not line.draft and line.sha256 != hashes[case.eval_id]:
            message = (
                f"edited in place: its content is not version {line.version}'s (sha256 "
                f"{short(line.sha256)}); correct it with a new version: "
                f"{bump_hint(es, case.eval_id)}"
            )
        else:
            continue
        yield Problem(es.display, message, **where)  # type: ignore[arg-type]


def lock_problems(
    sets: Sequence[EvalSetFile], warnings: list[str], *, strict: bool = False
) -> Iterator[Problem]:
    """Every set's cases against its lock; a set with no lock is a problem in the project's
    evals/ (or anywhere, `strict`: what CI's `ops-eval cases check` asks) and else a warning
    appended to `warnings`."""
    for es in sets:
        try:
            lock = read_lock(es.path)
        except LockError as exc:
            yield Problem(exc.file, exc.message, malformed=True)
            continue
        if lock is not None:
            yield from case_problems(es, lock)
            continue
        name = display_path(lock_path(es.path))
        if strict or is_project_set(es):
            message = f"no lock ({name}): every case of it needs a version; run {lock_hint(es)}"
            yield Problem(es.display, message)
        else:
            warnings.append(
                f"{es.display}: no lock ({name}): its cases have no versions, so a run of it "
                f"cannot name them; run {lock_hint(es)} to version them"
            )
