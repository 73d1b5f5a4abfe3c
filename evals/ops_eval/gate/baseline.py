"""Which run the candidate is compared with: one named explicitly, one pinned by name, or the
latest comparable run.

Explicit and pinned baselines are what a human chose; the automatic choice must be one a human
would have chosen. A pass rate only compares with one measured the same way, so it takes a run of
the same eval set, model and case selection, started before the candidate, that has a verdict at
all. And it must not drift: if each run were compared with the one just before it, a series of
drops each too small to call (inconclusive noise) or a failure nobody accepted would become the
new normal one step at a time. So a run is passed over when any gate verdict of its own was
inconclusive or failed without an override, when it fails the current policy on its own (a run
never gated included), when it was measured differently (eval set, seed, criteria or scorers
changed since, unless allowed), or when the gate cannot judge it -- and every run passed over is
reported with why.

Pins are kept in `pins.py`; which file a run id names, in `runs.py`.
"""

from __future__ import annotations

import os
from collections.abc import Collection
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from ..exits import OpsEvalError
from ..inputs import bad_input
from ..records import RunRecord
from ..run_index import scan, series, started_time
from .changes import changes
from .compare import own_failures
from .config import GateConfig
from .entries import AnyEntry, VerdictEntry
from .ledger import Ledger, find_override
from .outcomes import judgeable
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
    config: GateConfig,
    allowed: Collection[str],
) -> str | None:
    """Why `record` cannot be the candidate's automatic baseline; None when it can."""
    if record.run_id == candidate.run_id:
        return f"same run id as the candidate ({path.name} is a copy of it)"
    at = started_time(record)
    if at is None:
        return f"started_at {record.started_at[:40]!r} is not an ISO-8601 time"
    if at >= started:
        return f"started {record.started_at}, not before the candidate ({candidate.started_at})"
    if series(record)[0] != series(candidate)[0]:
        return f"eval set {record.eval_set}, not {candidate.eval_set}"
    if record.model.name != candidate.model.name:
        return f"model {record.model.name}, not {candidate.model.name}"
    if set(record.selected_cases) != set(candidate.selected_cases):
        theirs, ours = set(record.selected_cases), set(candidate.selected_cases)
        return (
            f"another case selection ({len(theirs)} cases, {len(theirs - ours)} not in the "
            f"candidate's {len(ours)}, {len(ours - theirs)} of the candidate's missing)"
        )
    blocking = [c.name for c in changes(record, candidate) if c.blocking and c.name not in allowed]
    if blocking:
        return (
            f"measured differently: {', '.join(blocking)} changed since (--allow-change "
            f"{','.join(blocking)} compares anyway)"
        )
    try:
        judgeable(record, config.gating_scorers, "its")
    except OpsEvalError as exc:
        return str(exc)
    for verdict in (e for e in entries if isinstance(e, VerdictEntry)):
        if verdict.candidate != record.run_id:
            continue
        against = f"against {verdict.baseline}" if verdict.baseline else "without a baseline"
        if verdict.verdict == "inconclusive_noise":
            return f"its own gate was inconclusive_noise ({against}, at {verdict.at})"
        if not verdict.passed and find_override(entries, verdict) is None:
            return (
                f"its own gate failed ({'; '.join(verdict.failures)}; {against}, at "
                f"{verdict.at}) and was not overridden"
            )
    failures = own_failures(record, config)
    if failures:
        return f"fails the policy on its own: {'; '.join(failures)}"
    return None


def choose_baseline(
    candidate: RunRecord,
    candidate_path: Path,
    *,
    explicit: str | None,
    pinned: str | None,
    ledger: Ledger,
    runs_dir: Path,
    config: GateConfig,
    allowed: Collection[str] = (),
) -> tuple[Baseline | None, list[tuple[str, str]]]:
    """(the baseline of a gate run: `--baseline RUN`, `--pinned NAME`, or else the newest
    comparable run under `runs_dir`, None when there is none; the runs passed over on the way,
    newest first, with why). Never the candidate itself; an explicit or pinned run the gate
    cannot judge is refused (exit 2)."""
    if explicit is not None and pinned is not None:
        raise bad_input("--baseline and --pinned: give one of them, not both")
    if explicit is not None or pinned is not None:
        if explicit is not None:
            path, how, label = resolve_run(explicit, runs_dir), "explicit", "baseline"
        else:
            path, entry = resolve_pin(ledger, pinned)
            by = f"by {entry.by} " if entry.by else ""
            how, label = f"pinned {pinned} (pinned {by}at {entry.at})", f"pinned baseline {pinned}"
        record = load(path, label)
        _not_itself(candidate, record, path)
        try:
            judgeable(record, config.gating_scorers, label)
        except OpsEvalError as exc:
            raise bad_input(f"{exc}; it cannot be a baseline") from None
        return Baseline(path, record, how), []
    started = started_time(candidate)
    if started is None:
        raise bad_input(
            f"candidate {candidate_path}: started_at {candidate.started_at[:40]!r} is not an "
            "ISO-8601 time"
        )
    entries = ledger.entries()
    records, unreadable = scan(runs_dir)
    skipped: list[tuple[str, str]] = []
    chosen: Baseline | None = None
    for path, record in reversed(records):  # newest first
        if _same_file(path, candidate_path):
            continue
        why = _why_not(record, path, candidate, started, entries, config, allowed)
        if why is None:
            chosen = Baseline(path, record, AUTO, skipped)
            break
        skipped.append((record.run_id, why))
    if unreadable:
        first, reason = unreadable[0]
        skipped.append(
            (f"{len(unreadable)} file(s)", f"not run records (e.g. {first.name}: {reason})")
        )
    return chosen, skipped
