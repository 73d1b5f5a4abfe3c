"""Which run record a command line names: a path, a run id or a unique prefix of one, or by
default the newest run -- among the runs and the pinned copies under the runs folder -- and
whether it holds a whole run (`partial`: a shard or an interrupted run never stands for one)."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from ..base.inputs import bad_input
from .records import RecordError, RunRecord
from .run_index import read_cached, scan

BASELINES = "baselines"
"""The folder, beside the ledger, that holds pinned copies."""
MIN_PREFIX = 6


def load(path: Path, label: str = "") -> RunRecord:
    """The run record at `path`; OpsEvalError (exit 2) `[<label> ]<path>: <why>` when it is not
    one (the caller's label says which run it was meant to be: a candidate, a shard)."""
    try:
        return read_cached(path)
    except RecordError as exc:
        raise bad_input(f"{label} {path}: {exc}".lstrip()) from None


def _ids(runs_dir: Path) -> dict[str, list[Path]]:
    """Run id -> the files holding it: the runs first, then pinned copies."""
    found: dict[str, list[Path]] = {}
    for folder in (runs_dir, runs_dir / BASELINES):
        records, _ = scan(folder)
        for path, record in records:
            found.setdefault(record.run_id, []).append(path)
    return found


def file_sha256(path: Path) -> str:
    from opskit.textfiles import TextFileError, read_bytes

    try:
        return hashlib.sha256(read_bytes(path)).hexdigest()
    except TextFileError as exc:
        raise bad_input(f"run record {path}: {exc}") from None


def _one_file(run_id: str, paths: list[Path]) -> Path:
    """The file of a run id; the run's own record before its pinned copy. Two files with the
    same id and different bytes are two different runs by one name: refused, not guessed."""
    if len({file_sha256(p) for p in paths}) > 1:
        shown = ", ".join(str(p) for p in paths[:5])
        raise bad_input(
            f"run id {run_id} names {len(paths)} different files ({shown}); give a path"
        )
    return paths[0]


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def resolve_run(spec: str | None, runs_dir: Path) -> Path:
    """The run record a command line names: none -> the newest under `runs_dir`; a file -> it;
    else a run id, exact or a unique prefix of at least 6 characters, among `runs_dir/*.json`
    and the pinned copies in `runs_dir/baselines/`. OpsEvalError (exit 2) otherwise."""
    if spec is None:
        records, skipped = scan(runs_dir)
        if not records:
            over = f" ({len(skipped)} file(s) there are not run records)" if skipped else ""
            raise bad_input(f"no run record in {runs_dir}{over}; run `mise run eval` first")
        newest = records[-1][0]  # scan: oldest first
        newer = [(p, why) for p, why in skipped if _mtime(p) > _mtime(newest)]
        if newer:  # the run meant is most likely the newest file: never judge an older one
            path, why = max(newer, key=lambda item: _mtime(item[0]))
            raise bad_input(
                f"the newest file in {runs_dir}, {path.name}, is not a run record ({why}); "
                "name the run"
            )
        return newest
    if Path(spec).is_file():
        return Path(spec)
    if os.path.islink(spec):  # a link that leads nowhere: say so, rather than look up an id
        try:
            os.stat(spec)
        except OSError as exc:
            raise bad_input(f"{spec}: cannot read ({exc.strerror})") from None
    if Path(spec).is_dir():
        raise bad_input(f"{spec}: is a folder; give a run record file or a run id")
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


SHARD = "one shard of a run, a slice of its trials (`ops-eval merge` its shards first)"


def partial(record: RunRecord) -> str | None:
    """Why `record` holds a part of its run, so that nothing may take it for one (a shard, an
    interrupted run); None when it holds the whole run."""
    if record.shard is not None:
        return SHARD
    if record.interrupted is not None:
        stopped = record.interrupted
        return (
            f"interrupted after {stopped.finished} of its {stopped.planned} trials "
            f"({stopped.reason})"
        )
    return None
