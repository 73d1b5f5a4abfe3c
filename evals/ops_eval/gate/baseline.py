"""Which run the candidate is compared with: one named explicitly, one pinned by name, or the
latest comparable run.

Explicit and pinned baselines are what a human chose; the automatic choice must be one a human
would have chosen. A pass rate only compares with one measured the same way, so it takes a run of
the same eval set, model and case selection, started before the candidate, that has a verdict at
all. And it must not drift: if each run were compared with the one just before it, a series of
drops each too small to call (inconclusive noise) or a failure nobody accepted would become the
new normal one step at a time. So a run whose own gate was inconclusive, or failed without a
recorded override, is passed over -- and every run passed over is reported with why.
Pins are kept in `pins.py`; which file a run id names, in `runs.py`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from ..inputs import bad_input
from ..records import RunRecord
from ..run_index import EPOCH, scan, started_time
from .entries import AnyEntry
from .ledger import Ledger, find_override, latest_verdict
from .pins import resolve_pin
from .runs import load, resolve_run

AUTO = "latest comparable run: same eval set, model and cases"


@dataclass
class Baseline:
    """The run to compare with, how it was chosen, and the runs passed over on the way (run id
    or file, why) -- so a reader can tell why the gate compared with this one."""

    path: Path
    record: RunRecord
    how: str
    skipped: list[tuple[str, str]] = field(default_factory=list)


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
    at = started_time(record)
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
    started = started_time(candidate)
    if started is None:
        raise bad_input(
            f"candidate {candidate_path}: started_at {candidate.started_at[:40]!r} is not an "
            "ISO-8601 time"
        )
    entries = ledger.entries()
    records, unreadable = scan(runs_dir)
    records.sort(key=lambda item: (started_time(item[1]) or EPOCH, item[0].name), reverse=True)
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
