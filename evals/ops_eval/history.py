"""`ops-eval history [--set S] [--model M] [--format csv|json|html] [--output PATH]`: every run
record under the runs folder as one row, oldest first -- so a trend is read from the records
themselves, with each rate's denominator and interval, instead of from memory or screenshots.

A row holds the run's identity (id, start, eval set, model, commit), its pass rate over valid
trials with the 95% Wilson interval the record stored (errors counted apart), the mean
trajectory score, pass^k when the run had repeats, its tokens and wall time, and what changed
since the previous run of the same series. A series is one eval set with one model: only within
it is "the rate moved" a statement about the agent and not about a different question or
model; what changed (`gate.changes`) says whether the question itself moved (seed, cases,
criteria, ...) between the two runs.

Files that are not run records are passed over and counted on stderr, never silently. Exit
codes: 0 written; 2 bad input -- an output path that is a folder or cannot be written, a filter
that matches no record, or no run record at all.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from .exits import EXIT_OK, OpsEvalError
from .inputs import bad_input, output_file

if TYPE_CHECKING:
    from .gate.changes import Change
    from .records import Rate, RunRecord

FORMATS = ("csv", "json", "html")
EVALSET_SUFFIX = ".evalset.json"
TRAJECTORY = "trajectory"
FIRST_RUN = "first run"

CSV_COLUMNS = (
    "run_id",
    "started_at",
    "eval_set",
    "model",
    "git_commit",
    "passed",
    "n",
    "rate",
    "ci_low",
    "ci_high",
    "errors",
    "trajectory_mean",
    "repeats",
    "pass_hat_k",
    "pass_hat_k_cases",
    "prompt_tokens",
    "output_tokens",
    "total_tokens",
    "seconds",
    "previous_run",
    "changed",
    "file",
)


@dataclass(frozen=True)
class HistoryRow:
    """One run record as the history shows it."""

    file: str
    run_id: str
    started_at: str
    eval_set: str
    model: str
    git_commit: str | None
    rate: Rate  # all trials: passed / valid trials, with the record's Wilson interval
    errors: int
    trajectory_mean: float | None
    repeats: int
    pass_hat_k: float | None
    pass_hat_k_cases: int | None
    prompt_tokens: int
    output_tokens: int
    seconds: float
    previous_run: str | None  # the run before this one in its series; None: the first
    changed: tuple[Change, ...] | None  # since `previous_run`; None: nothing to compare with

    @property
    def series(self) -> tuple[str, str]:
        return self.eval_set, self.model

    @property
    def fraction(self) -> float | None:
        return self.rate.passed / self.rate.n if self.rate.n else None

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.output_tokens

    @property
    def changed_text(self) -> str:
        """`first run`, the changed kinds joined with `;`, or "" when nothing changed."""
        if self.changed is None:
            return FIRST_RUN
        return ";".join(c.name for c in self.changed)


def trajectory_mean(record: RunRecord) -> float | None:
    """Mean trajectory score over valid trials whose trajectory score applies and has a value;
    None when no trial has one (an errored trial is counted apart, never as a 0)."""
    values = [
        score.value
        for t in record.trials
        if t.status != "error"
        and (score := t.scores.get(TRAJECTORY)) is not None
        and score.outcome != "n/a"
        and score.value is not None
    ]
    return sum(values) / len(values) if values else None


def history_rows(records: Sequence[tuple[Path, RunRecord]]) -> list[HistoryRow]:
    """A row per record, in the order given (oldest first), each compared with the previous
    record of its series."""
    from .gate.changes import changes
    from .run_index import series

    last: dict[tuple[str, str], RunRecord] = {}
    rows = []
    for path, record in records:
        key = series(record)
        previous = last.get(key)
        last[key] = record
        turns = [turn for t in record.trials for turn in t.turns]
        has_hat = record.pass_hat_k is not None
        rows.append(
            HistoryRow(
                file=path.name,
                run_id=record.run_id,
                started_at=record.started_at,
                eval_set=record.eval_set,
                model=record.model.name,
                git_commit=record.git_commit,
                rate=record.total.rate,
                errors=record.total.errors,
                trajectory_mean=trajectory_mean(record),
                repeats=record.repeats,
                pass_hat_k=record.pass_hat_k,
                pass_hat_k_cases=record.pass_hat_k_cases if has_hat else None,
                prompt_tokens=sum(turn.prompt_tokens for turn in turns),
                output_tokens=sum(turn.output_tokens for turn in turns),
                seconds=record.seconds,
                previous_run=previous.run_id if previous else None,
                changed=tuple(changes(previous, record)) if previous else None,
            )
        )
    return rows


def set_matches(eval_set: str, wanted: str) -> bool:
    """`--set`: the record's eval set path ends with `wanted`, whole path components (so `ops`
    is not `myops`), or its file name without `.evalset.json` is `wanted`."""
    path, asked = PurePosixPath(eval_set), PurePosixPath(wanted)
    if asked.parts and path.parts[-len(asked.parts) :] == asked.parts:
        return True
    return path.name.endswith(EVALSET_SUFFIX) and path.name[: -len(EVALSET_SUFFIX)] == wanted


def _blank(value: object) -> object:
    return "" if value is None else value


def to_json(row: HistoryRow) -> dict[str, Any]:
    """The row as `--format json` writes it: null where there is no value, and each change with
    the value or hash on both sides (null `changed`: the first run of its series)."""
    rate = row.rate
    changed = None
    if row.changed is not None:
        changed = [
            {"name": c.name, "baseline": c.baseline, "candidate": c.candidate} for c in row.changed
        ]
    return {
        "run_id": row.run_id,
        "started_at": row.started_at,
        "eval_set": row.eval_set,
        "model": row.model,
        "git_commit": row.git_commit,
        "pass_rate": {
            "k": rate.passed,
            "n": rate.n,
            "rate": row.fraction,
            "low": rate.ci_low,
            "high": rate.ci_high,
        },
        "errors": row.errors,
        "trajectory_mean": row.trajectory_mean,
        "repeats": row.repeats,
        "pass_hat_k": row.pass_hat_k,
        "pass_hat_k_cases": row.pass_hat_k_cases,
        "tokens": {
            "prompt": row.prompt_tokens,
            "output": row.output_tokens,
            "total": row.total_tokens,
        },
        "seconds": row.seconds,
        "previous_run": row.previous_run,
        "changed": changed,
        "file": row.file,
    }


def to_csv_row(row: HistoryRow) -> list[object]:
    """The row as `CSV_COLUMNS`; an empty cell where there is no value (no rate, no pass^k)."""
    rate = row.rate
    values = (
        row.run_id,
        row.started_at,
        row.eval_set,
        row.model,
        row.git_commit,
        rate.passed,
        rate.n,
        row.fraction,
        rate.ci_low,
        rate.ci_high,
        row.errors,
        row.trajectory_mean,
        row.repeats,
        row.pass_hat_k,
        row.pass_hat_k_cases,
        row.prompt_tokens,
        row.output_tokens,
        row.total_tokens,
        row.seconds,
        row.previous_run,
        row.changed_text,
        row.file,
    )
    return [_blank(v) for v in values]


def render(rows: Sequence[HistoryRow], fmt: str, folder: Path) -> str:
    """The history as `fmt` (csv, json or html); jinja2 is imported only for html."""
    if fmt == "csv":
        import csv
        import io

        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(CSV_COLUMNS)
        writer.writerows(to_csv_row(r) for r in rows)
        return out.getvalue()
    if fmt == "json":
        import json

        return json.dumps([to_json(r) for r in rows], indent=1, ensure_ascii=False) + "\n"
    if fmt == "html":
        return _html(rows, folder)
    raise ValueError(f"unknown format {fmt!r}")


def _html(rows: Sequence[HistoryRow], folder: Path) -> str:
    from .report import history_html
    from .report.trend import trend

    numbered = list(enumerate(rows, start=1))
    series: dict[tuple[str, str], list[tuple[str, str, Rate]]] = {}
    for number, r in numbered:
        tooltip = f"#{number} {r.run_id} {r.started_at}: {r.rate.text}"
        series.setdefault(r.series, []).append((str(number), tooltip, r.rate))
    trends = [(eval_set, model, trend(runs)) for (eval_set, model), runs in series.items()]
    return history_html(rows=numbered, trends=trends, folder=str(folder))


def select(
    records: Sequence[tuple[Path, RunRecord]], eval_set: str | None, model: str | None
) -> list[tuple[Path, RunRecord]]:
    """The records `--set` and `--model` keep. Both keep whole series, so each run is still
    compared with the previous run of its own series."""
    return [
        (path, r)
        for path, r in records
        if (eval_set is None or set_matches(r.eval_set, eval_set))
        and (model is None or r.model.name == model)
    ]


def _filters(eval_set: str | None, model: str | None) -> str:
    return " ".join(
        f"{option} {value}" for option, value in (("--set", eval_set), ("--model", model)) if value
    )


def export_history(
    eval_set: str | None = None,
    model: str | None = None,
    fmt: str | None = None,
    output: str | None = None,
) -> tuple[str, int, Path | None]:
    """(the history as text, its row count, the file it was written to or None for stdout) of
    the run records under the runs folder. The format defaults to the output's suffix when that
    is .csv, .json or .html, else csv. Says on stderr how many files it passed over.
    OpsEvalError (exit 2) for a bad filter, an unwritable output, or no run record."""
    from .run_index import scan
    from .settings import current

    if eval_set is not None and not eval_set.strip():
        raise bad_input("--set: empty; give an eval set path or name (e.g. ops)")
    out = output_file("--output", Path(output)) if output else None
    if fmt is None:
        suffix = out.suffix.lstrip(".").lower() if out else ""
        fmt = suffix if suffix in FORMATS else "csv"
    folder = current().runs_dir
    records, skipped = scan(folder) if folder.is_dir() else ([], [])
    if skipped:
        path, why = skipped[0]
        print(
            f"passed over {len(skipped)} file(s) that are not run records: "
            f"first: {path.name}: {why}",
            file=sys.stderr,
        )
    if not records:
        raise bad_input(f"no run record in {folder}; run `mise run eval` first")
    kept = select(records, eval_set, model)
    if not kept:
        sets = sorted({r.eval_set for _, r in records})
        models = sorted({r.model.name for _, r in records})
        raise bad_input(
            f"no run record in {folder} matches {_filters(eval_set, model)} "
            f"({len(records)} record(s); eval sets: {', '.join(sets)}; "
            f"models: {', '.join(models)})"
        )
    text = render(history_rows(kept), fmt, folder)
    if out is not None:
        try:
            out.write_text(text, encoding="utf-8")
        except OSError as exc:
            raise bad_input(f"{out}: cannot write ({exc.strerror})") from None
    return text, len(kept), out


def run_history(
    eval_set: str | None = None,
    model: str | None = None,
    fmt: str | None = None,
    output: str | None = None,
) -> int:
    """`export_history`, printed to stdout or written to `output`; the exit code."""
    try:
        text, count, out = export_history(eval_set, model, fmt, output)
    except OpsEvalError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exc.code
    if out is None:
        sys.stdout.write(text)
    else:
        print(f"history: {count} run(s) -> {out}", file=sys.stderr)
    return EXIT_OK


def _cmd_history(args: argparse.Namespace) -> int:
    return run_history(args.set, args.model, args.format, args.output)


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add `history` to `ops-eval`'s subcommands; it sets `handler`."""
    history = subparsers.add_parser(
        "history",
        help="every run record under the runs folder, one row per run: pass rate with its "
        "interval, pass^k, tokens, time, what changed since the series' previous run",
    )
    history.add_argument(
        "--set",
        metavar="S",
        help="only runs of this eval set: a path it ends with, or its name (ops)",
    )
    history.add_argument("--model", metavar="M", help="only runs of this model (exact name)")
    history.add_argument(
        "--format",
        choices=FORMATS,
        help="default: the --output suffix if it is one of these, else csv",
    )
    history.add_argument("--output", metavar="PATH", help="write to this file (default: stdout)")
    history.set_defaults(handler=_cmd_history)
    return history
