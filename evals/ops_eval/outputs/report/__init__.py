"""Reports of a run record, each leading with the verdict and why (`verdict`): the terminal
summary (`summary`), Markdown (fit for
$GITHUB_STEP_SUMMARY) and one self-contained HTML file with aligned trajectories (`align`) and a
pass-rate chart with error bars (`chart`); and the geometry of the history page's pass-rate trend
with its interval band (`trend`); both reports written for `ops-eval report` (`written`). The
Markdown and HTML come from the jinja2 templates beside this module.

May import: the layers below `outputs`.
"""

from __future__ import annotations

import html
import json
from functools import cache
from pathlib import Path
from typing import Any

from ...base.exports import lazy_getattr
from ...core.calls import ToolCall
from ...results.records import RunRecord, TrialRecord
from .align import Row, align
from .chart import chart
from .summary import (
    data_text,
    gate_word,
    hat,
    pass_hat,
    rate_text,
    server_calls,
    server_text,
    skipped_text,
    summary_lines,
)
from .verdict import applied_scores, folded, reasons, verdict_line

__all__ = [
    "Row",
    "align",
    "history_html",
    "html_report",
    "markdown",
    "partial_figures",
    "summary_lines",
]


def _md_call(call: ToolCall | None) -> str:
    """A call as a Markdown code span; empty for no call."""
    if call is None:
        return ""
    return f"`{call.name}({', '.join(f'{k}={json.dumps(v)}' for k, v in call.args.items())})`"


def _md_cell(value: Any) -> str:
    """Text for one Markdown table cell: a `|` would end the cell, a line break the row."""
    return " ".join(str(value).split()).replace("|", "\\|")


def _escape(value: Any) -> Any:
    """Every value the HTML template prints goes through the standard library's html.escape."""
    from markupsafe import Markup

    return value if isinstance(value, Markup) else Markup(html.escape(str(value)))


@cache
def _env(kind: str) -> Any:
    import jinja2

    options: dict[str, Any] = {"trim_blocks": True, "lstrip_blocks": True}
    if kind == "html":
        options.update(autoescape=True, finalize=_escape)
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(Path(__file__).with_name("templates")),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        **options,
    )
    env.filters.update(
        md_call=_md_call,
        md_cell=_md_cell,
        tojson_text=json.dumps,
        hat=hat,
        gate=gate_word,
        rate=rate_text,
    )
    env.globals.update(align=align, pass_hat=pass_hat, applied_scores=applied_scores)
    return env


PARTIAL = "partial_credit"  # the report scorer whose figures the case and category tables show


def partial_figures(record: RunRecord) -> dict[str, dict[str, str]]:
    """Mean F1 and mean edit distance of the calls (`partial_credit`), per case id and per
    category, over the trials that have them, as text ("" when none has): the tables show a
    slide from 1.0 to 0.9 before any case flips."""
    groups: dict[str, list[dict[str, float]]] = {}
    for t in record.trials:
        score = t.scores.get(PARTIAL)
        if score is not None and score.figures:
            groups.setdefault(f"case:{t.case_id}", []).append(score.figures)
            groups.setdefault(f"category:{t.category}", []).append(score.figures)
    out: dict[str, dict[str, str]] = {}
    for key, figures in groups.items():
        means = {
            name: sum(f.get(name, 0.0) for f in figures) / len(figures)
            for name in ("f1", "edit_distance")
        }
        out[key] = {name: f"{value:.2f}" for name, value in means.items()}
    return out


def _first_failing(record: RunRecord, case_id: str) -> TrialRecord | None:
    mine = [t for t in record.trials if t.case_id == case_id]
    return next((t for t in mine if t.status != "passed"), mine[0] if mine else None)


def case_labels(record: RunRecord) -> dict[str, str]:
    """Each case's version as the run played it (`v2`, or `unlocked <hash>` for content the
    set's lock does not hold), so a verdict names the exact case it came from; {} for a record
    older than version 6 (no case hashes)."""
    from ...results.shared_cases import case_versions

    return {case: v.label() for case, v in (case_versions(record) or {}).items()}


def markdown(record: RunRecord, mutation: str | None = None) -> str:
    below = [
        (c, trial)
        for c in record.cases
        if c.gate is not True and (trial := _first_failing(record, c.case_id)) is not None
    ]
    has_problems = any(c.gate is not True for c in record.cases)
    return (
        _env("md")
        .get_template("report.md.j2")
        .render(
            r=record,
            below=below,
            has_problems=has_problems,
            pc=partial_figures(record),
            skipped=skipped_text(record, ": "),
            servers_text=server_text(record, quote="`"),
            data=data_text(record),
            mutation=mutation,
            versions=case_labels(record),
            **_leading(record),
        )
    )


def _leading(record: RunRecord) -> dict[str, Any]:
    """What both reports lead with (`verdict`): the verdict, why each case failed, and the
    scorers folded by whether they applied."""
    return {"verdict": verdict_line(record), "why": reasons(record), "folding": folded(record)}


def html_report(record: RunRecord, mutation: str | None = None) -> str:
    return (
        _env("html")
        .get_template("report.html.j2")
        .render(
            r=record,
            chart=chart([g for g in record.categories if g.rate.n]),  # no bar, no whisker
            pc=partial_figures(record),
            skipped=skipped_text(record, ": "),
            servers=server_calls(record),
            data=data_text(record),
            mutation=mutation,
            versions=case_labels(record),
            **_leading(record),
        )
    )


def history_html(**context: Any) -> str:
    """The `ops-eval history` page, from the same autoescaping environment as the report, so a
    model name or eval set path is escaped the same way (`history.py` builds the context)."""
    return _env("html").get_template("history.html.j2").render(**context)


# Public names loaded on first use (what they import would load with the package).
_EXPORTS = {
    "run_summary": "written",
    "verdict_line": "verdict",
    "write_reports": "written",
}
__all__ += sorted(_EXPORTS)
__getattr__ = lazy_getattr(__name__, _EXPORTS)
