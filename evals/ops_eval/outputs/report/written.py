"""A run record's Markdown and HTML reports written -- by `ops-eval report`, beside the record
or where asked, and by `run_summary` after `ops-eval run` and `merge` -- with what the runs
folder's mutation ledger says of its eval set: a line the caller's `mutation_of` gives (the
commands pass `mutation.mutation_line`: mutation testing sits above `outputs`, so the report is
handed its reader and never imports it). The record and both output paths are checked before
anything is written, so bad input leaves no half-written report (exit 2).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ...base.inputs import output_file, write_output
from ...results.records import RunRecord


def write_reports(
    run: str | None,
    markdown_to: str | None,
    html_to: str | None,
    mutation_of: Callable[[Any], str | None],
) -> tuple[RunRecord, Path, Path]:
    """(the record, Markdown path, HTML path) of the record `run` -- a path or a run id, as
    every command names one (`results.runs`; default: the newest run); OpsEvalError (exit 2)
    for a record that cannot be read or a path that cannot be written. `mutation_of(record)`
    is the mutation line for the eval set the record was judged by, or None; it may refuse
    too (exit 2), before anything is written."""
    from ...base.settings import current
    from ...results.runs import load, resolve_run
    from . import html_report, markdown

    path = resolve_run(run, current().runs_dir)
    record = load(path)
    md_path = output_file("--markdown", Path(markdown_to or path.with_suffix(".md")))
    html_path = output_file("--html", Path(html_to or path.with_suffix(".html")))
    mutation = mutation_of(record)
    write_output(md_path, markdown(record, mutation))
    write_output(html_path, html_report(record, mutation))
    return record, md_path, html_path


def run_summary(
    record: RunRecord, path: Path, mutation_of: Callable[[Any], str | None] | None = None
) -> list[str]:
    """What `ops-eval run` and `merge` print once the record is written: its reports written
    beside it (as `ops-eval report` would, so every reason the terminal cuts short is one path
    away), the summary, verdict first, naming them, and -- when the run is below the gate --
    a last line saying that exit 1 is a measurement, not a broken harness."""
    from ...base.exits import OpsEvalError, measured_failure
    from . import html_report, markdown, summary_lines, verdict_line

    mutation = mutation_of(record) if mutation_of is not None else None
    md_path, html_path = path.with_suffix(".md"), path.with_suffix(".html")
    try:
        write_output(md_path, markdown(record, mutation))
        write_output(html_path, html_report(record, mutation))
        report: str | None = str(html_path)
        said = f"report: {html_path} (Markdown: {md_path.name})"
    except OpsEvalError as exc:  # the record stands without its reports
        report, said = None, f"warning: no report written: {exc}"
    # The verdict again above the paths: after a long case table, the end is what is read.
    lines = [*summary_lines(record, report), "", verdict_line(record), said, f"run record: {path}"]
    last = measured_failure(record.exit_code, "the run is below the gate")
    return lines + ([last] if last else [])
