"""Merging the shard records of one run (`ops-eval run --shard I/N`) into the record one unsharded
run of the same trials would have written.

A shard `I/N` holds every trial whose position p in the run's plan order -- the set's case order
x repeats 1..R, 0-based -- has p % N == I - 1 (`record_parts.shard_slice`). The slice depends
only on the selected cases, the repeats and I/N, so each shard checks itself (`records`) and a
merge checks the shards cover the run exactly once. Merging recomputes the aggregates from the
union of the trials (`aggregation`), never from the shards' own partial ones. The merged
record keeps each trial's case hash and version (`shared_cases`), and shards that played one
case at two versions are refused, naming the case.

`merge_runs` is `ops-eval merge`: the shard records named on the command line merged and
written under the runs folder, or to `--output`, with the shards' spans files merged beside it
for `ops-eval mlflow --from-run`. OpsEvalError (exit 2) for shards that are not the shards of
one run, or an output that would overwrite one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..base.inputs import bad_input
from .aggregation import aggregate, record_fields, scorer_rules
from .record_parts import planned
from .records import SCHEMA_VERSION, RunRecord
from .shared_cases import HASHED_FROM, CaseVersion, case_versions

SHOWN = 8  # missing or overlapping trials named in one line, at most


def _shown(keys: Sequence[tuple[str, int]]) -> str:
    text = ", ".join(f"{case} #{r}" for case, r in keys[:SHOWN])
    return text + (f", ... ({len(keys)} in all)" if len(keys) > SHOWN else "")


def _what(record: RunRecord) -> dict[str, Any]:
    """What must be the same in every shard of one run."""
    return {
        "eval set": record.eval_set_sha256,
        "seed": record.seed_sha256,
        "instruction": sorted(record.instruction_sha256.items()),
        "tool schema": record.tool_schema_sha256,
        "model": record.model.name,
        "criteria": record.criteria.model_dump(),
        "scorers": record.scorers_sha256,
        "scorers' rules": record.scoring,
        "repeats": record.repeats,
        "selected cases": record.selected_cases,
        "shard count": record.shard.count if record.shard else None,
        "run group": record.shard.group if record.shard else None,
        "judge": (record.judge.pin, record.judge.prompt_versions) if record.judge else None,
        "data kept (full, or minimal under one key)": (
            record.data.model_dump() if record.data else "full"
        ),
        "case hashes (record version 6)": record.schema_version >= HASHED_FROM,
        "eval set's case count": record.eval_set_cases,
    }


def _one_version_per_case(shards: Sequence[tuple[str, RunRecord]]) -> None:
    """Every shard that played a case played it at one hash and version: a run is of one
    version of each case (a shard started after the set's contracts or lock changed is not)."""
    seen: dict[str, tuple[str, CaseVersion]] = {}
    for name, record in shards:
        for case, version in (case_versions(record) or {}).items():
            first, theirs = seen.setdefault(case, (name, version))
            if theirs != version:
                raise bad_input(
                    f"{name}: run {record.run_id} played case {case} at {version.label()} "
                    f"(sha256 {version.sha256[:12]}), {first} at {theirs.label()} (sha256 "
                    f"{theirs.sha256[:12]}); shards of one run play one version of each case"
                )


def _judge(records: Sequence[RunRecord]) -> Any:
    """The shards' judge use, summed (they agree on the judge: checked)."""
    uses = [r.judge for r in records if r.judge is not None]
    if not uses:
        return None
    summed = uses[0].model_copy()
    for name in ("calls", "cache_hits", "errors", "tokens", "budget_blocked"):
        setattr(summed, name, sum(getattr(u, name) for u in uses))
    summed.budget_problem = next((u.budget_problem for u in uses if u.budget_problem), None)
    return summed


def merge_records(shards: Sequence[tuple[str, RunRecord]], run_id: str) -> RunRecord:
    """One record of the shards' trials, aggregated as an unsharded run of them would be.
    `shards`: (how to name the shard in a message -- its path --, its record).
    OpsEvalError (exit 2) naming the shard when they are not the shards of one run."""
    if not shards:
        raise bad_input("merge: no shard record given")
    for name, record in shards:
        if record.shard is None:
            raise bad_input(f"{name}: run {record.run_id} is not a shard record (no `shard`)")
        if record.interrupted is not None:
            stopped = record.interrupted
            raise bad_input(
                f"{name}: shard {record.shard.index}/{record.shard.count} was interrupted after "
                f"{stopped.finished} of its {stopped.planned} trials; run that shard again"
            )
    first_name, first = shards[0]
    expected = _what(first)
    for name, record in shards[1:]:
        mine = _what(record)
        for what, value in expected.items():
            if mine[what] != value:
                raise bad_input(
                    f"{name}: run {record.run_id} differs from {first_name} in {what}; "
                    "shards of one run share it"
                )
    _one_version_per_case(shards)
    assert first.shard is not None
    count = first.shard.count
    by_index: dict[int, str] = {}
    owner: dict[tuple[str, int], str] = {}
    for name, record in shards:
        assert record.shard is not None
        index = record.shard.index
        if index in by_index:
            raise bad_input(
                f"{name}: shard {index}/{count} overlaps {by_index[index]} (the same shard twice)"
            )
        by_index[index] = name
        twice = [(t.case_id, t.repeat) for t in record.trials if (t.case_id, t.repeat) in owner]
        if twice:
            raise bad_input(
                f"{name}: shard {index}/{count} overlaps {owner[twice[0]]} in trial(s) "
                f"{_shown(twice)}"
            )
        owner.update({(t.case_id, t.repeat): name for t in record.trials})
    plan = planned(first.selected_cases, first.repeats)
    missing = [key for key in plan if key not in owner]
    if missing:
        absent = [f"{i}/{count}" for i in range(1, count + 1) if i not in by_index]
        gone = f"; shard(s) {', '.join(absent)} not given" if absent else ""
        raise bad_input(f"merge: trial(s) {_shown(missing)} are in no shard given{gone}")
    trials = {(t.case_id, t.repeat): t for _, r in shards for t in r.trials}
    ordered = [trials[key] for key in plan]
    category = {t.case_id: t.category for t in ordered}
    cases = [(case, category[case]) for case in first.selected_cases]
    rules = first.scoring or scorer_rules()  # the shards agree on their scorers (checked)
    agg = aggregate(cases, ordered, first.repeats, first.criteria.threshold, rules)
    fields = record_fields(agg, ordered, rules)
    commits = {r.git_commit for _, r in shards}
    records = [r for _, r in shards]
    notes = fields.pop("notes")
    notes.append(
        "merged from shards "
        + ", ".join(f"{r.shard.index}/{count} {r.run_id}" for r in records if r.shard)
    )
    if len(commits) > 1:
        notes.append(f"the shards ran at {len(commits)} different git commits; none is recorded")
    if first.shard is not None and first.shard.group is None:
        notes.append(
            "the shards carry no --run-group: that they are shards of one run, and not of two "
            "runs alike, is taken on trust"
        )
    elif first.shard is not None:
        notes.append(f"run group {first.shard.group}")
    model = first.model
    endpoints = list(dict.fromkeys(r.model.endpoint for r in records if r.model.endpoint))
    if len(endpoints) > 1:  # one model served from several machines: the merge names them all
        model = model.model_copy(update={"endpoint": ", ".join(endpoints)})
        notes.append(
            "the shards were served by "
            + ", ".join(f"{r.model.endpoint} (shard {r.shard.index})" for r in records if r.shard)
        )
    return RunRecord(
        schema_version=SCHEMA_VERSION if case_versions(first) is not None else HASHED_FROM - 1,
        eval_set_cases=first.eval_set_cases,
        run_id=run_id,
        started_at=min(r.started_at for r in records),
        seconds=max(r.seconds for r in records),  # the shards ran side by side
        model=model,
        eval_set=first.eval_set,
        eval_set_sha256=first.eval_set_sha256,
        seed_sha256=first.seed_sha256,
        instruction_sha256=first.instruction_sha256,
        tool_schema_sha256=first.tool_schema_sha256,
        scorers_sha256=first.scorers_sha256,
        git_commit=first.git_commit if len(commits) == 1 else None,
        git_dirty=any(r.git_dirty for r in records) if len(commits) == 1 else None,
        criteria=first.criteria,
        repeats=first.repeats,
        concurrency=max(r.concurrency for r in records),
        selected_cases=first.selected_cases,
        trials=ordered,
        judge=_judge(records),
        data=first.data,
        merged_from=[r.run_id for r in sorted(records, key=lambda r: r.shard.index)],  # type: ignore[union-attr]
        notes=notes,
        **fields,
    )


def _same(a: Path, b: Path) -> bool:
    """One file, by name or by a link to it."""
    import os

    from opskit.textfiles import resolved  # not at import: the CLI loads this module

    if resolved(a) == resolved(b):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist (yet)
        return False


def _merged_path(record: RunRecord, started: str) -> Path:
    import uuid
    from datetime import datetime

    from ..base.settings import current

    stamp = datetime.fromisoformat(started).strftime("%Y%m%dT%H%M%SZ")
    name = Path(record.eval_set).name.removesuffix(".evalset.json")
    return current().runs_dir / f"{stamp}-{name}-merged-{uuid.uuid4().hex[:6]}.json"


def _merged_spans(shards: Sequence[tuple[str, RunRecord]], say: Callable[[str], None]) -> dict:
    """The spans each shard's run kept beside its record (`playing.spans`), by trial; a shard
    without a usable spans file is named, and `ops-eval mlflow --from-run` draws its trials
    instead."""
    from ..playing.spans import SpansError, read_spans, spans_path

    kept: dict = {}
    for where, record in shards:
        try:
            kept.update(read_spans(spans_path(Path(where)), record.run_id))
        except SpansError as exc:
            say(f"note: shard {record.run_id}: no spans kept for the merged run ({exc})")
    return kept


def merge_runs(
    specs: Sequence[str], output: Path | None, say: Callable[[str], None] = lambda _: None
) -> tuple[RunRecord, Path]:
    """`ops-eval merge`: the shard records `specs` name (paths or run ids), merged and written
    to `output`, or under the runs folder as a run's record is; the shards' spans files are
    merged beside it, for `ops-eval mlflow --from-run`."""
    import uuid
    from datetime import UTC, datetime

    from ..base.data_policy import holding
    from ..base.inputs import check_writable, output_file
    from ..base.settings import current
    from ..playing.spans import spans_path, write_spans
    from .records import write_record
    from .runs import load, resolve_run

    runs_dir = current().runs_dir
    shards = []
    for spec in specs:
        path = resolve_run(spec, runs_dir)
        shards.append((str(path), load(path, "shard")))
    record = merge_records(shards, uuid.uuid4().hex[:12])
    started = datetime.now(UTC).isoformat(timespec="seconds")
    path = output_file("--output", output) if output else _merged_path(record, started)
    for where, shard in shards:  # the merged record must not take an input's place
        for mine in (Path(where), spans_path(Path(where))):
            if any(_same(mine, out) for out in (path, spans_path(path))):
                raise bad_input(
                    f"--output {path}: it would overwrite shard {shard.run_id} ({where})"
                )
    check_writable(path)
    if record.minimal:  # its shards kept no spans; nothing of their text is written here
        with holding("minimal"):
            write_record(record, path)
        return record, path
    check_writable(spans_path(path), "--output (its spans file)")
    spans = _merged_spans(shards, say)
    write_record(record, path)
    if spans:
        write_spans(path, record.run_id, spans)
    return record, path
