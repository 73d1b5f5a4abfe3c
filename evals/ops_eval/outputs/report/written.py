"""A run record's Markdown and HTML reports written (`ops-eval report`), beside the record or
where asked, with what the runs folder's mutation ledger says of its eval set. The record and
both output paths are checked before anything is written, so bad input leaves no half-written
report (exit 2).
"""

from __future__ import annotations

from pathlib import Path

from ...base.inputs import bad_input, output_file


def mutation_line(eval_set_sha256: str) -> str | None:
    """What the runs folder's mutation ledger says of this exact eval set (its newest complete
    oracle score), for the report; None when it was never measured."""
    from ...base.settings import current
    from ...results.mutation_ledger import LedgerError, latest_for

    try:
        entry = latest_for(current().runs_dir, eval_set_sha256)
    except LedgerError as exc:
        raise bad_input(str(exc)) from None
    if entry is None:
        return None
    return f"{entry.text()} killed (ops-eval mutate, {entry.time})"


def write_reports(
    run: str | None, markdown_to: str | None, html_to: str | None
) -> tuple[str, Path, Path]:
    """(Markdown text, Markdown path, HTML path) of the record `run` -- a path or a run id, as
    every command names one (`results.runs`; default: the newest run); OpsEvalError (exit 2)
    for a record that cannot be read or a path that cannot be written."""
    from ...base.settings import current
    from ...results.runs import load, resolve_run
    from . import html_report, markdown

    path = resolve_run(run, current().runs_dir)
    record = load(path)
    md_path = output_file("--markdown", Path(markdown_to or path.with_suffix(".md")))
    html_path = output_file("--html", Path(html_to or path.with_suffix(".html")))
    mutation = mutation_line(record.eval_set_sha256)
    text = markdown(record, mutation)
    for out, content in ((md_path, text), (html_path, html_report(record, mutation))):
        try:
            out.write_text(content, encoding="utf-8")
        except OSError as exc:
            raise bad_input(f"{out}: cannot write ({exc.strerror})") from None
    return text, md_path, html_path
