"""`ops-eval audit-run RUN`: does a minimal-data run's every artefact hold nothing it must not?

Scans (`results/data_audit.py`): the run record -- every place a hash belongs holds one,
labels are within the declared length, no scrubber rule matches any text; that no spans file
lies beside it; each `--also` file or folder (the run's console log, a report, a history
export) for rule matches; with `--mlflow`, what every MLflow run that logged the record wrote
(params, tags, traces, text artifacts). With `--planted FILE` (one value a line: the secrets
and personal data planted in the seed copy, the prompts and the answers), each of those values
is searched byte for byte in all of it -- in the MLflow store's own files too. Without it, a
label the harness wrote about a trial is still held to the harness's vocabulary
(`results.vocabulary`): a copy of the trial's text in it is found with no value named.

A leak is named by artefact and place, never shown: the audit's output is a log as well.

Exit codes: 0 nothing found; 1 a leak (one line each); 2 a run, file or planted list that
cannot be read; 3 the MLflow store cannot be read.
"""

from __future__ import annotations

import argparse
import contextlib
from pathlib import Path
from typing import Any

from ..base.exits import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_INFRA, EXIT_OK, OpsEvalError


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "audit-run",
        help="scan a minimal-data run's artefacts (record, logs, reports, MLflow) for text it "
        "must not hold; exit 1 naming each leak",
    )
    p.add_argument("run", metavar="RUN", help="run record (path or run id)")
    p.add_argument(
        "--also",
        action="append",
        default=[],
        metavar="PATH",
        help="another artefact of the run to scan: its console log, a report, a history export "
        "(a folder: every file in it); repeatable",
    )
    p.add_argument(
        "--planted",
        metavar="FILE",
        help="values that must appear nowhere, one a line (the secrets planted for a test)",
    )
    p.add_argument(
        "--mlflow",
        action="store_true",
        help="also scan what MLflow (MLFLOW_TRACKING_URI) logged of the run, and its store's files",
    )
    p.set_defaults(handler=run)


def _planted(path: str | None) -> list[str]:
    from opskit.textfiles import TextFileError, read_text

    if path is None:
        return []
    try:
        values = [line.strip() for line in read_text(Path(path)).splitlines()]
    except TextFileError as exc:
        raise OpsEvalError(EXIT_BAD_INPUT, f"--planted {path}: {exc}") from None
    values = [v for v in values if v]
    if not values:
        raise OpsEvalError(EXIT_BAD_INPUT, f"--planted {path}: no value in it")
    return values


def _files(paths: list[str]) -> list[Path]:
    found: list[Path] = []
    for given in paths:
        path = Path(given)
        if path.is_dir():
            found += sorted(p for p in path.rglob("*") if p.is_file())
        elif path.is_file():
            found.append(path)
        else:
            raise OpsEvalError(EXIT_BAD_INPUT, f"--also {given}: {_not_a_file(path)}")
    return found


def _not_a_file(path: Path) -> str:
    """What `path` is, when it is neither a file nor a folder (reading a device or a pipe
    would never end, or read nothing the run wrote)."""
    import stat

    try:
        mode = path.stat().st_mode
    except OSError:
        return "no such file or folder"
    kinds = {
        stat.S_ISCHR: "a character device",
        stat.S_ISBLK: "a block device",
        stat.S_ISFIFO: "a named pipe (FIFO)",
        stat.S_ISSOCK: "a socket",
    }
    kind = next((name for test, name in kinds.items() if test(mode)), "not a regular file")
    return f"{kind}, not a file or folder"


def audit(args: argparse.Namespace) -> tuple[int, list[str]]:
    """(exit code, the lines to print)."""
    import json

    from ..base.settings import current
    from ..playing.spans import spans_path
    from ..results.data_audit import Leak, planted_leaks, record_leaks, text_leaks
    from ..results.runs import load, resolve_run

    path = resolve_run(args.run, current().runs_dir)
    record = load(path, "RUN")
    planted = _planted(args.planted)
    raw = path.read_bytes()
    leaks: list[Leak] = record_leaks(json.loads(raw), f"record {path.name}")
    leaks += planted_leaks(f"record {path.name}", raw, planted)
    scanned = 1
    spans = spans_path(path)
    if spans.exists():
        leaks.append(Leak(f"spans {spans.name}", "file", "exists (ADK's spans hold text)"))
    for file in _files(args.also):
        scanned += 1
        data = file.read_bytes()
        with contextlib.suppress(UnicodeDecodeError):  # binary: searched for planted values only
            leaks += text_leaks(str(file), data.decode("utf-8"))
        leaks += planted_leaks(str(file), data, planted)
    notes: list[str] = []
    if args.mlflow:
        scanned += _mlflow(record.run_id, planted, leaks, notes)
    lines = [leak.line() for leak in leaks] + notes
    verdict = f"{len(leaks)} leak(s)" if leaks else "nothing it must not hold"
    kind = "minimal-data" if record.minimal else "full-data"
    lines.append(f"audit-run {record.run_id} ({kind}): {scanned} artefact(s) scanned, {verdict}")
    return (EXIT_FAILED if leaks else EXIT_OK), lines


def _mlflow(run_id: str, planted: list[str], leaks: list[Any], notes: list[str]) -> int:
    """Scan the store's record of `run_id` into `leaks`; how many artefacts were scanned."""
    from ..outputs.tracking.audit import logged_texts, store_files
    from ..outputs.tracking.config import tracking_target
    from ..outputs.tracking.store import ensure_mlflow, reachable
    from ..results.data_audit import planted_leaks, text_leaks

    target = tracking_target()
    reachable(target)
    ensure_mlflow(lambda line: None)
    scanned = 0
    try:
        for name, text in logged_texts(target, run_id):
            scanned += 1
            leaks += text_leaks(name, text)
            leaks += planted_leaks(name, text.encode(), planted)
    except Exception as exc:  # MLflow's own errors have no common base
        raise OpsEvalError(EXIT_INFRA, f"MLflow store {target.shown}: {exc}") from None
    if not scanned:
        notes.append(f"note: no MLflow run in {target.shown} logged run {run_id}")
    for file in store_files(target):
        scanned += 1
        leaks += planted_leaks(f"mlflow store {file.name}", file.read_bytes(), planted)
    return scanned


def run(args: argparse.Namespace) -> int:
    code, lines = audit(args)
    for line in lines:
        print(line)
    return code
