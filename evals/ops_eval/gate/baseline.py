"""Which run the candidate is compared with: one named explicitly, one pinned by name, or the
latest comparable run.

Explicit and pinned baselines are what a human chose; the automatic choice must be one a human
would have chosen. A pass rate only compares with one measured the same way, so it takes a run of
the same eval set, model and case selection, started before the candidate, that has a verdict at
all. And it must not drift: if each run were compared with the one just before it, a series of
drops each too small to call (inconclusive noise) or a failure nobody accepted would become the
new normal one step at a time. So a run whose own gate was inconclusive, or failed without a
recorded override, is passed over -- and every run passed over is reported with why.

A pinned baseline is a byte-for-byte copy under the ledger's folder (`baselines/<run id>.json`)
with its sha256 in the ledger: a pin keeps meaning the same run even when `runs/` is cleaned, and
a copy changed since is refused rather than silently compared with.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from ..exits import OpsEvalError
from ..inputs import bad_input
from ..records import RecordError, RunRecord
from ..run_index import read_cached, scan
from .ledger import (
    AnyEntry,
    Ledger,
    PinEntry,
    checked_name,
    find_override,
    latest_verdict,
    pins,
)

BASELINES = "baselines"
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
MIN_PREFIX = 6
# A run id becomes a file name under baselines/: nothing that could leave the folder.
_SAFE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
AUTO = "latest comparable run: same eval set, model and cases"


@dataclass
class Baseline:
    """The run to compare with, how it was chosen, and the runs passed over on the way (run id
    or file, why) -- so a reader can tell why the gate compared with this one."""

    path: Path
    record: RunRecord
    how: str
    skipped: list[tuple[str, str]] = field(default_factory=list)


def load(path: Path, label: str) -> RunRecord:
    """The run record at `path`; OpsEvalError (exit 2) `<label> <path>: <why>` when it is not
    one (the caller's label says which run it was meant to be)."""
    try:
        return read_cached(path)
    except RecordError as exc:
        raise bad_input(f"{label} {path}: {exc}") from None


def _ids(runs_dir: Path) -> dict[str, list[Path]]:
    """Run id -> the files holding it: the runs first, then pinned copies."""
    found: dict[str, list[Path]] = {}
    for folder in (runs_dir, runs_dir / BASELINES):
        records, _ = scan(folder)
        for path, record in records:
            found.setdefault(record.run_id, []).append(path)
    return found


def _sha256(path: Path) -> str:
    from ops_copilot.textfiles import TextFileError, read_bytes

    try:
        return hashlib.sha256(read_bytes(path)).hexdigest()
    except TextFileError as exc:
        raise bad_input(f"run record {path}: {exc}") from None


def _one_file(run_id: str, paths: list[Path]) -> Path:
    """The file of a run id; the run's own record before its pinned copy. Two files with the
    same id and different bytes are two different runs by one name: refused, not guessed."""
    if len({_sha256(p) for p in paths}) > 1:
        shown = ", ".join(str(p) for p in paths[:5])
        raise bad_input(
            f"run id {run_id} names {len(paths)} different files ({shown}); give a path"
        )
    return paths[0]


def resolve_run(spec: str | None, runs_dir: Path) -> Path:
    """The run record a command line names: none -> the newest under `runs_dir`; a file -> it;
    else a run id, exact or a unique prefix of at least 6 characters, among `runs_dir/*.json`
    and the pinned copies in `runs_dir/baselines/`. OpsEvalError (exit 2) otherwise."""
    if spec is None:
        records, skipped = scan(runs_dir)
        if not records:
            over = f" ({len(skipped)} file(s) there are not run records)" if skipped else ""
            raise bad_input(f"no run record in {runs_dir}{over}; run `mise run eval` first")
        return max(records, key=lambda item: (_started(item[1]) or _EPOCH, item[0].name))[0]
    if Path(spec).is_file():
        return Path(spec)
    ids = _ids(runs_dir)
    if spec in ids:
        return _one_file(spec, ids[spec])
    matches = sorted(i for i in ids if i.startswith(spec)) if len(spec) >= MIN_PREFIX else []
    if len(matches) == 1:
        return _one_file(matches[0], ids[matches[0]])
    if len(matches) > 1:
        shown = ", ".join(matches[:8]) + (", ..." if len(matches) > 8 else "")
        raise bad_input(
            f"run id prefix {spec} matches {len(matches)} runs ({shown}); give more of it"
        )
    short = f" (a prefix needs at least {MIN_PREFIX} characters)" if len(spec) < MIN_PREFIX else ""
    raise bad_input(
        f"no run record {spec}: not a file, and no run under {runs_dir} has that id{short}"
    )


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _started(record: RunRecord) -> datetime | None:
    """`started_at` as a time (a time without a zone read as UTC); None when it is not one.
    Compared as times, not strings: `+00:00` and `Z`, or another offset, sort wrongly as text."""
    try:
        at = datetime.fromisoformat(record.started_at)
    except ValueError:
        return None
    return at if at.tzinfo else at.replace(tzinfo=UTC)


# --- pins ----------------------------------------------------------------------------------


def _check_pin_name(name: str) -> str:
    if not NAME.fullmatch(name):
        raise bad_input(
            f"--name {name[:80]!r}: a pin name is 1 to 64 letters, digits, '.', '_' or '-', "
            "starting with a letter or digit"
        )
    return name


def _copy(data: bytes, target: Path) -> None:
    """Write `target` whole or not at all: a temporary file beside it, fsynced, renamed."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temp, target)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def pin(
    ledger: Ledger, spec: str, name: str, by: str | None, *, runs_dir: Path | None = None
) -> PinEntry:
    """`ops-eval baseline pin RUN --name NAME`: copy the run's record byte for byte to
    `<ledger folder>/baselines/<run id>.json` and record the pin. Re-pinning a name appends a
    new pin; the latest wins. A run without a verdict (every trial errored, exit 3) is refused:
    there is nothing to compare with. `runs_dir` (default: the settings') is where RUN is
    looked up."""
    from ops_copilot.textfiles import TextFileError, read_bytes

    from ..settings import current

    _check_pin_name(name)
    who = checked_name("--by", by) if by is not None else None
    path = resolve_run(spec, runs_dir or current().runs_dir)
    try:
        data = read_bytes(path)
    except TextFileError as exc:
        raise bad_input(f"run record {path}: {exc}") from None
    record = load(path, "run record")
    if hashlib.sha256(data).hexdigest() != _sha256(path):
        raise bad_input(f"run record {path}: changed while it was being pinned; pin it again")
    if record.exit_code == 3:
        raise bad_input(
            f"run {record.run_id} has no verdict (every trial errored, exit 3); it cannot be a "
            "baseline"
        )
    if not _SAFE_ID.fullmatch(record.run_id):
        raise bad_input(
            f"run record {path}: run id {record.run_id[:80]!r} cannot name a file; not pinned"
        )
    relative = f"{BASELINES}/{record.run_id}.json"
    digest = hashlib.sha256(data).hexdigest()

    def make(entries: list[AnyEntry]) -> PinEntry:
        target = ledger.folder / relative
        if target.exists() or target.is_symlink():
            try:
                same = target.is_file() and not target.is_symlink() and _sha256(target) == digest
            except OpsEvalError:
                same = False
            if not same:
                raise bad_input(
                    f"{target} already exists with other bytes than {path}; a pinned copy is "
                    "never overwritten (move it away if it is not pinned)"
                )
        else:
            _copy(data, target)
        return PinEntry(name=name, run=record.run_id, sha256=digest, path=relative, by=who)

    return ledger.append_with(make)


def resolve_pin(ledger: Ledger, name: str) -> tuple[Path, PinEntry]:
    """The pinned copy of the latest pin called `name`, checked against its sha256."""
    known = pins(ledger.entries())
    entry = known.get(name)
    if entry is None:
        listed = (
            f"pinned names: {', '.join(sorted(known))}"
            if known
            else "no baseline is pinned yet (`ops-eval baseline pin RUN --name NAME`)"
        )
        raise bad_input(f"no baseline is pinned as {name!r}; {listed}")
    path = ledger.folder / entry.path
    from ops_copilot.textfiles import TextFileError, read_bytes

    try:
        intact = path.is_file() and hashlib.sha256(read_bytes(path)).hexdigest() == entry.sha256
    except (TextFileError, OSError):
        intact = False
    if not intact:
        raise bad_input(
            f"pinned baseline {name}: {path} was changed or removed since it was pinned "
            f"(at {entry.at}, sha256 {entry.sha256[:12]}…)"
        )
    return path, entry


# --- the choice ----------------------------------------------------------------------------


def _not_itself(candidate: RunRecord, baseline: RunRecord, path: Path) -> None:
    if baseline.run_id == candidate.run_id:
        raise bad_input(
            f"baseline {path} is run {candidate.run_id}, the candidate itself; compare with "
            "another run"
        )


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve() or os.path.samefile(a, b)
    except OSError:
        return False


def _why_not(
    record: RunRecord,
    path: Path,
    candidate: RunRecord,
    started: datetime,
    entries: list[AnyEntry],
) -> str | None:
    """Why `record` cannot be the candidate's automatic baseline; None when it can."""
    if record.run_id == candidate.run_id:
        return f"same run id as the candidate ({path.name} is a copy of it)"
    at = _started(record)
    if at is None:
        return f"started_at {record.started_at[:40]!r} is not an ISO-8601 time"
    if at >= started:
        return f"started {record.started_at}, not before the candidate ({candidate.started_at})"
    if Path(record.eval_set).name != Path(candidate.eval_set).name:  # as `run_index.series`
        return f"eval set {record.eval_set}, not {candidate.eval_set}"
    if record.model.name != candidate.model.name:
        return f"model {record.model.name}, not {candidate.model.name}"
    if set(record.selected_cases) != set(candidate.selected_cases):
        theirs, ours = set(record.selected_cases), set(candidate.selected_cases)
        return (
            f"another case selection ({len(theirs)} cases, {len(theirs - ours)} not in the "
            f"candidate's {len(ours)}, {len(ours - theirs)} of the candidate's missing)"
        )
    if record.exit_code == 3:
        return "no verdict: every trial errored (exit 3)"
    verdict = latest_verdict(entries, record.run_id)
    if verdict is None:
        return None
    against = f"against {verdict.baseline}" if verdict.baseline else "without a baseline"
    if verdict.verdict == "inconclusive_noise":
        return f"its own gate was inconclusive_noise ({against}, at {verdict.at})"
    if not verdict.passed and find_override(entries, record.run_id, verdict.baseline) is None:
        why = "; ".join(verdict.failures)
        return (
            f"its own gate failed ({verdict.verdict}: {why}; {against}, at {verdict.at}) "
            "and was not overridden"
        )
    return None


def latest_comparable(
    candidate: RunRecord, candidate_path: Path, *, ledger: Ledger, runs_dir: Path
) -> tuple[Baseline | None, list[tuple[str, str]]]:
    """(the newest run under `runs_dir` the candidate can be compared with, or None; every run
    passed over, newest first, with why). `choose_baseline` without explicit or pinned; use it
    directly to say why there is no baseline."""
    started = _started(candidate)
    if started is None:
        raise bad_input(
            f"candidate {candidate_path}: started_at {candidate.started_at[:40]!r} is not an "
            "ISO-8601 time"
        )
    entries = ledger.entries()
    records, unreadable = scan(runs_dir)
    records.sort(key=lambda item: (_started(item[1]) or _EPOCH, item[0].name), reverse=True)
    skipped: list[tuple[str, str]] = []
    chosen: Baseline | None = None
    for path, record in records:
        if _same_file(path, candidate_path):
            continue
        why = _why_not(record, path, candidate, started, entries)
        if why is None:
            chosen = Baseline(path, record, AUTO, skipped)
            break
        skipped.append((record.run_id, why))
    if unreadable:
        first, reason = unreadable[0]
        skipped.append(
            (
                f"{len(unreadable)} file(s)",
                f"not run records (e.g. {first.name}: {reason})",
            )
        )
    return chosen, skipped


def choose_baseline(
    candidate: RunRecord,
    candidate_path: Path,
    *,
    explicit: str | None,
    pinned: str | None,
    ledger: Ledger,
    runs_dir: Path,
) -> Baseline | None:
    """The baseline of a gate run: `--baseline RUN`, `--pinned NAME`, or else the latest
    comparable run (None when there is none). Never the candidate itself."""
    if explicit is not None and pinned is not None:
        raise bad_input("--baseline and --pinned: give one of them, not both")
    if explicit is not None:
        path = resolve_run(explicit, runs_dir)
        record = load(path, "baseline")
        _not_itself(candidate, record, path)
        return Baseline(path, record, "explicit")
    if pinned is not None:
        path, entry = resolve_pin(ledger, pinned)
        record = load(path, f"pinned baseline {pinned}")
        _not_itself(candidate, record, path)
        by = f"by {entry.by} " if entry.by else ""
        return Baseline(path, record, f"pinned {pinned} (pinned {by}at {entry.at})")
    chosen, _ = latest_comparable(candidate, candidate_path, ledger=ledger, runs_dir=runs_dir)
    return chosen
