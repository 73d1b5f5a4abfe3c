"""`ops-eval merge RUN...`: the shard records of one run merged (`results.merge`) and written
under the runs folder, or to `--output`, with the shards' spans files merged beside it for
`ops-eval mlflow --from-run`. Exit: the merged run's own (0 gate passed, 1 failed, 3 every trial
an error); 2 shards that are not the shards of one run, or an output that would overwrite one.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..results.records import RunRecord


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
    """The spans each shard's run kept beside its record (`spans.py`), by trial; a shard without
    a usable spans file is named, and `ops-eval mlflow --from-run` draws its trials instead."""
    from ..playing.spans import SpansError, read_spans, spans_path

    kept: dict = {}
    for where, record in shards:
        try:
            kept.update(read_spans(spans_path(Path(where)), record.run_id))
        except SpansError as exc:
            say(f"note: shard {record.run_id}: no spans kept for the merged run ({exc})")
    return kept


def merge(
    specs: Sequence[str], output: Path | None, say: Callable[[str], None] = lambda _: None
) -> tuple[RunRecord, Path]:
    """`ops-eval merge`: the shard records `specs` name (paths or run ids), merged and written
    to `output`, or under the runs folder as a run's record is; the shards' spans files are
    merged beside it, for `ops-eval mlflow --from-run`."""
    import uuid
    from datetime import UTC, datetime

    from ..base.data_policy import holding
    from ..base.inputs import bad_input, check_writable, output_file
    from ..base.settings import current
    from ..playing.spans import spans_path, write_spans
    from ..results.merge import merge_records
    from ..results.records import write_record
    from ..results.runs import load, resolve_run

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


def run(args: argparse.Namespace) -> int:
    from ..outputs.report import summary_lines

    record, path = merge(
        args.runs,
        Path(args.output) if args.output else None,
        lambda line: print(line, file=sys.stderr),
    )
    for line in summary_lines(record):
        print(line)
    print(f"run record: {path}")
    return record.exit_code


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add `merge` to `ops-eval`'s subcommands; it sets `handler`."""
    parser = subparsers.add_parser(
        "merge",
        help="merge the shard records of one run (`run --shard I/N`) into its run record",
    )
    parser.add_argument("runs", nargs="+", metavar="RUN", help="shard record: path or run id")
    parser.add_argument("--output", metavar="PATH", help="merged record path (default: runs/...)")
    parser.set_defaults(handler=run)
    return parser
