"""The history written (`ops-eval history`): every run record under the runs folder as one row
(`rows`), filtered, in a format (`formats`), to stdout or a file (`--mutation`'s scores are the
mutation ledger's: `mutation.mutation_history`). Files that are not run records are passed over
and counted, never silently. OpsEvalError (exit 2) for an output path that is a folder or cannot
be written, a filter that matches no record, or no run record at all.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from ...base.inputs import bad_input, output_file, write_output
from .formats import FORMATS, render
from .rows import history_rows, select


def _filters(eval_set: str | None, model: str | None) -> str:
    return " ".join(
        f"{option} {value}" for option, value in (("--set", eval_set), ("--model", model)) if value
    )


def export_history(
    eval_set: str | None = None,
    model: str | None = None,
    fmt: str | None = None,
    output: str | None = None,
    say: Callable[[str], None] = lambda line: print(line, file=sys.stderr),
) -> tuple[str, int, Path | None]:
    """(the history as text, its row count, the file it was written to or None for stdout) of
    the run records under the runs folder. The format defaults to the output's suffix when that
    is .csv, .json or .html, else the table, on a terminal or not (`--format csv` for machines).
    Says (`say`) how many files it passed over. OpsEvalError (exit 2) for a bad filter, an
    unwritable output, or no run record."""
    from ...base.settings import current
    from ...results.run_index import scan

    if eval_set is not None and not eval_set.strip():
        raise bad_input("--set: empty; give an eval set path or name (e.g. ops)")
    if model is not None and not model.strip():
        raise bad_input("--model: empty; give a model name as its runs record it")
    out = output_file("--output", Path(output)) if output else None
    if fmt is None:
        suffix = out.suffix.lstrip(".").lower() if out else ""
        fmt = suffix if suffix in FORMATS else "table"
    folder = current().runs_dir
    records, skipped = scan(folder) if folder.is_dir() else ([], [])
    if skipped:
        path, why = skipped[0]
        say(
            f"passed over {len(skipped)} file(s) that are not run records: "
            f"first: {path.name}: {why}"
        )
    if not records:
        raise bad_input(f"no run record in {folder}; run `mise run eval` first")
    kept = select(history_rows(records), eval_set, model)  # compared over all, then filtered
    if not kept:
        sets = sorted({r.eval_set for _, r in records})
        models = sorted({r.model.name for _, r in records})
        raise bad_input(
            f"no run record in {folder} matches {_filters(eval_set, model)} "
            f"({len(records)} record(s); eval sets: {', '.join(sets)}; "
            f"models: {', '.join(models)})"
        )
    text = render(kept, fmt, folder)
    if out is not None:
        write_output(out, text)
    return text, len(kept), out
