"""The formats `ops-eval history` writes its rows in: a table a person reads (`table`, the
default), CSV (`CSV_COLUMNS`, an empty cell where there is no value), JSON (nested rate, tokens
and changes, null where there is no value), and a self-contained HTML page with a pass-rate trend
per series. jinja2 is imported only for html, tabulate only for the table.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .rows import HistoryRow

if TYPE_CHECKING:
    from ...results.record_parts import RecordedRate

FORMATS = ("table", "csv", "json", "html")

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
    "cases_changed",
    "interrupted",
    "conversations",
    "conversation_turns",
    "ended_by",
    "data",
    "file",
)


# What a spreadsheet reads as the start of a formula (OWASP, "CSV Injection").
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: object) -> object:
    """`value` as a CSV cell: "" for None, and text a spreadsheet would run as a formula (a model
    named `=HYPERLINK(...)`, a run id `+cmd|...`) behind a single quote, which shows it as text.
    Only text: a number, negative or not, is written as it is."""
    if value is None:
        return ""
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value


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
        "cases_changed": _cases(row),
        "interrupted": row.interrupted,
        "conversations": (
            None
            if row.conversations is None
            else {
                "count": row.conversations.count,
                "turns": row.conversations.turns,
                "ended_by": row.conversations.ended_by,
            }
        ),
        "data": row.data,
        "file": row.file,
    }


def _cases(row: HistoryRow) -> dict[str, Any] | None:
    """The cases added, removed or changed since the previous run (each with its version and
    hash) and how many it shares; null when either run names no case hashes."""
    if row.cases is None:
        return None
    moved = row.cases.as_dict()
    return {**moved, "shared": len(moved["shared"])}


def to_csv_row(row: HistoryRow) -> list[object]:
    """The row as `CSV_COLUMNS`; an empty cell where there is no value (no rate, no pass^k), and
    text a spreadsheet would take for a formula quoted (`csv_cell`)."""
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
        row.cases_text,
        row.interrupted,
        row.conversations.count if row.conversations else None,
        row.conversations.turns if row.conversations else None,
        row.conversations.ended_text if row.conversations else None,
        row.data,
        row.file,
    )
    return [csv_cell(v) for v in values]


def render(rows: Sequence[HistoryRow], fmt: str, folder: Path) -> str:
    """The history as `fmt` (table, csv, json or html); jinja2 is imported only for html."""
    if fmt == "table":
        from .table import table

        return table(rows)
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

        # allow_nan=False: NaN or infinity is no JSON; a record cannot hold one (`Score`, `_Rec`)
        rows_json = [to_json(r) for r in rows]
        return json.dumps(rows_json, indent=1, ensure_ascii=False, allow_nan=False) + "\n"
    if fmt == "html":
        return _html(rows, folder)
    raise ValueError(f"unknown format {fmt!r}")


def _html(rows: Sequence[HistoryRow], folder: Path) -> str:
    from ..report import history_html
    from ..report.trend import trend

    numbered = list(enumerate(rows, start=1))
    series: dict[tuple[str, str], list[tuple[str, str, RecordedRate]]] = {}
    for number, r in numbered:
        tooltip = f"#{number} {r.run_id} {r.started_at}: {r.rate.text}"
        series.setdefault(r.series, []).append((str(number), tooltip, r.rate))
    trends = [(eval_set, model, trend(runs)) for (eval_set, model), runs in series.items()]
    return history_html(rows=numbered, trends=trends, folder=str(folder))
