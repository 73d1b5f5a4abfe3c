"""A run record's Markdown and HTML reports written (`ops-eval report`), beside the record or
where asked, with what the runs folder's mutation ledger says of its eval set -- a line the
caller's `mutation_of` gives (the command passes `mutation.mutation_line`: mutation testing sits
above `outputs`, so the report is handed its reader and never imports it). The record and both
output paths are checked before anything is written, so bad input leaves no half-written report
(exit 2).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ...base.inputs import output_file, write_output


def write_reports(
    run: str | None,
    markdown_to: str | None,
    html_to: str | None,
    mutation_of: Callable[[Any], str | None],
) -> tuple[str, Path, Path]:
    """(Markdown text, Markdown path, HTML path) of the record `run` -- a path or a run id, as
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
    text = markdown(record, mutation)
    for out, content in ((md_path, text), (html_path, html_report(record, mutation))):
        write_output(out, content)
    return text, md_path, html_path
