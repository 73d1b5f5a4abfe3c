"""The run records under a folder, read once per version of each file: what the gate scans for a
baseline and a run id, and what `ops-eval history` exports.

Files that are not run records (a report, a log, a broken or foreign JSON file) are returned
apart with the reason, for the caller to say how many it passed over -- never silently.
"""

from __future__ import annotations

from datetime import UTC, datetime
from functools import cache
from pathlib import Path

from .records import RecordError, RunRecord, load_record


@cache
def _load(path: str, mtime_ns: int, size: int) -> RunRecord | str:
    try:
        return load_record(Path(path))
    except RecordError as exc:
        return str(exc)


def read_cached(path: Path) -> RunRecord:
    """`load_record`, remembered per version of the file; RecordError as it raises."""
    try:
        stat = path.stat()
    except OSError:
        return load_record(path)  # raises the precise reason
    found = _load(str(path), stat.st_mtime_ns, stat.st_size)
    if isinstance(found, str):
        raise RecordError(found)
    return found


def scan(folder: Path) -> tuple[list[tuple[Path, RunRecord]], list[tuple[Path, str]]]:
    """(records, oldest first by start time; files passed over, with why) of `folder/*.json`."""
    records: list[tuple[Path, RunRecord]] = []
    skipped: list[tuple[Path, str]] = []
    for path in sorted(folder.glob("*.json")):
        try:
            records.append((path, read_cached(path)))
        except RecordError as exc:
            skipped.append((path, str(exc)))
    records.sort(key=lambda item: (started_time(item[1]) or _EPOCH, item[0].name))
    return records, skipped


def series(record: RunRecord) -> tuple[str, str]:
    """The runs that are one line of history: the same eval set file and model. The set is named
    by its file name, as a record keeps its path relative to wherever the run was started."""
    return Path(record.eval_set).name, record.model.name


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def started_time(record: RunRecord) -> datetime | None:
    """`started_at` as a time (a time without a zone read as UTC); None when it is not one.
    Compared as times, not strings: `+00:00` and `Z`, or another offset, sort wrongly as text."""
    try:
        at = datetime.fromisoformat(record.started_at)
    except ValueError:
        return None
    return at if at.tzinfo else at.replace(tzinfo=UTC)
