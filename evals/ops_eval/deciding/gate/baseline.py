"""Which run the candidate is compared with: one named explicitly, one pinned by name, or the
latest comparable run.

Explicit and pinned baselines are what a human chose; without either, the series' latest pin
(same eval set, model and case selection) is the anchor -- fixed, chosen by a human, so it
neither drifts nor is picked by how runs happened to score. Without a pin, the automatic choice
must be one a human would have chosen: the newest earlier run of the series, measured the same
way (no blocking change unless allowed) and judgeable, whose latest verdict under the policy in
force passed (or was overridden) and was not inconclusive -- a run nobody gated is no baseline.
Even so, a rolling baseline lets drops each below the threshold add up, and preferring runs that
passed biases it upward (more false alarms than the simulation of independent pairs shows): the
docs/gate.md says so, and a pin avoids both. Every run passed over is reported with why.

Pins are kept in `pins.py`; which file a run id names, in `runs.py`.
"""

from __future__ import annotations

import os
from collections.abc import Collection
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from opskit.textfiles import resolved

from ...base.exits import OpsEvalError
from ...base.inputs import bad_input
from ...results.records import RunRecord
from ...results.run_index import scan, series, started_time
from ...results.runs import load, partial, resolve_run
from ...results.shared_cases import case_versions, shared_cases
from ...validation.gate_config import GateConfig
from ..ledger.chain import Ledger
from ..ledger.entries import AnyEntry, VerdictEntry, find_override, pins
from .changes import changes
from .outcomes import judgeable
from .pins import resolve_pin

AUTO = "latest comparable run gated under this policy: same eval set, model and cases"


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
        return resolved(a) == resolved(b) or os.path.samefile(a, b)
    except OSError:
        return False


def _other_series(record: RunRecord, candidate: RunRecord) -> bool:
    """Not a run of the candidate's eval set, model and case selection: never a baseline, and
    only counted when passed over (listing every run of every other set would bury the rest).
    Two runs of the whole set that name their case hashes are one series as the set grows:
    they are compared on the cases they share (`results.shared_cases`)."""
    if series(record) != series(candidate):
        return True
    return set(record.selected_cases) != set(candidate.selected_cases) and not (
        _whole_set(record) and _whole_set(candidate)
    )


def _whole_set(record: RunRecord) -> bool:
    """A run of every case its set held, naming their hashes (version 6)."""
    return len(record.selected_cases) == record.eval_set_cases and bool(case_versions(record))


def _comparable(
    record: RunRecord, candidate: RunRecord, config: GateConfig, allowed: Collection[str]
) -> str | None:
    """Why a run of the candidate's series is not measured the way the candidate is; None when
    it is (no blocking change, unless allowed, and the gate can judge it)."""
    if why := partial(record):
        return why
    blocking = [c.name for c in changes(record, candidate) if c.blocking and c.name not in allowed]
    if blocking:
        return (
            f"measured differently: {', '.join(blocking)} changed since (--allow-change "
            f"{','.join(blocking)} compares anyway)"
        )
    shared = shared_cases(record, candidate)
    if shared is not None and not shared.shared:
        return "no case shared with the candidate at the same version"
    try:
        judgeable(record, config.gating_scorers, "its")
    except OpsEvalError as exc:
        return str(exc)
    return None


def _why_not(
    record: RunRecord,
    path: Path,
    candidate: RunRecord,
    started: datetime,
    entries: list[AnyEntry],
    config: GateConfig,
    allowed: Collection[str],
    policies: Collection[str],
) -> str | None:
    """Why `record`, a run of the candidate's series, cannot be its automatic baseline; None
    when it can. Its standing is its latest verdict under the policy in force (`policies`: the
    gate file's, and the one applied now when flags tighten it): never gated under it,
    inconclusive, or failed without an override, it is passed over. Verdicts under other
    policies -- a one-off stricter gate -- say nothing about it under this one."""
    if record.run_id == candidate.run_id:
        return f"same run id as the candidate ({path.name} is a copy of it)"
    at = started_time(record)
    if at is None:
        return f"started_at {record.started_at[:40]!r} is not an ISO-8601 time"
    if at >= started:
        return f"started {record.started_at}, not before the candidate ({candidate.started_at})"
    unlike = _comparable(record, candidate, config, allowed)
    if unlike:
        return unlike
    latest = None
    for entry in entries:
        if (
            isinstance(entry, VerdictEntry)
            and entry.candidate == record.run_id
            and entry.policy_sha256 in policies
        ):
            latest = entry
    if latest is None:
        return (
            "never gated under this policy (`ops-eval gate "
            f"{record.run_id}` first; a run nobody judged is no baseline)"
        )
    against = f"against {latest.baseline}" if latest.baseline else "without a baseline"
    if latest.verdict == "inconclusive_noise":
        return f"its own gate was inconclusive_noise ({against}, at {latest.at})"
    if not latest.passed and find_override(entries, latest) is None:
        return (
            f"its own gate failed ({'; '.join(latest.failures)}; {against}, at {latest.at}), "
            "with no override of that decision"
        )
    return None


def _pinned_anchor(
    candidate: RunRecord,
    ledger: Ledger,
    entries: list[AnyEntry],
    config: GateConfig,
    allowed: Collection[str],
) -> tuple[Baseline | None, list[tuple[str, str]]]:
    """The latest pin of the candidate's series that it can be compared with: a fixed anchor
    a human chose, which neither drifts nor is picked by how runs happened to score."""
    skipped: list[tuple[str, str]] = []
    latest = pins(entries)
    newest_first = sorted(latest.items(), key=lambda item: entries.index(item[1]), reverse=True)
    for name, entry in newest_first:
        try:
            path, _ = resolve_pin(ledger, name)
            record = load(path, f"pinned baseline {name}")
        except OpsEvalError as exc:
            skipped.append((f"pin {name}", str(exc)))
            continue
        if _other_series(record, candidate) or record.run_id == candidate.run_id:
            continue
        unlike = _comparable(record, candidate, config, allowed)
        if unlike:
            skipped.append((f"pin {name} (run {record.run_id})", unlike))
            continue
        by = f"by {entry.by} " if entry.by else ""
        how = f"pinned {name} (pinned {by}at {entry.at}), the series' latest pin"
        return Baseline(path, record, how), skipped
    return None, skipped


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
    policies: Collection[str] | None = None,
) -> tuple[Baseline | None, list[tuple[str, str]]]:
    """(the baseline: `--baseline RUN`, `--pinned NAME`, else the series' latest pin, else
    the newest eligible run under `runs_dir` (`_why_not`); None when there is none; the runs
    passed over on the way, newest first, with why). `policies`: the policy hashes whose
    verdicts count (default: the one applied). Never the candidate itself; an explicit or
    pinned run the gate cannot judge is refused (exit 2)."""
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
        if why := partial(record):
            raise bad_input(f"{label} run {record.run_id}: {why}; it cannot be a baseline")
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
    anchor, skipped = _pinned_anchor(candidate, ledger, entries, config, allowed)
    if anchor is not None:
        anchor.skipped = skipped
        return anchor, skipped
    records, unreadable = scan(runs_dir)
    policies = {config.digest()} if policies is None else policies
    other = 0
    chosen: Baseline | None = None
    for path, record in reversed(records):  # newest first
        if _same_file(path, candidate_path):
            continue
        if _other_series(record, candidate):
            other += 1
            continue
        why = _why_not(record, path, candidate, started, entries, config, allowed, policies)
        if why is None:
            chosen = Baseline(path, record, AUTO, skipped)
            break
        skipped.append((record.run_id, why))
    if other:
        skipped.append((f"{other} run(s)", "of another eval set, model or case selection"))
    if unreadable:
        first, reason = unreadable[0]
        skipped.append(
            (f"{len(unreadable)} file(s)", f"not run records (e.g. {first.name}: {reason})")
        )
    return chosen, skipped
