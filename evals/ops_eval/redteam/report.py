"""The deterministic red team's HTML report: the verdict, every finding (not only the first
twenty the console shows), the headline counts, every table of `tables` with each cell of a
designed ablation labelled and shaded as one, and the known gaps with their reasons -- from the
jinja2 template `templates/redteam.html.j2`, one self-contained file. Written to
`runs/redteam.html` (the runs folder every command writes to) or where `--report` says; the
path is checked before anything runs, so an unwritable one is exit 2 and one line, never a
report silently missing after a run.
"""

from __future__ import annotations

import html
from functools import cache
from pathlib import Path
from typing import Any

from .results import SuiteResult

DEFAULT_NAME = "redteam.html"


def report_path(option: str | None) -> Path:
    """Where the report goes: `--report PATH`, else `redteam.html` in the runs folder;
    OpsEvalError (exit 2) when it is a folder or cannot be written."""
    from ..base.inputs import check_writable, output_file
    from ..base.settings import current

    path = output_file("--report", Path(option) if option else current().runs_dir / DEFAULT_NAME)
    check_writable(path, "--report")
    return path


def shown(path: Path) -> str:
    """The path as a person would type it here: relative to the working folder when inside it."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def _escape(value: Any) -> Any:
    from markupsafe import Markup

    return value if isinstance(value, Markup) else Markup(html.escape(str(value)))


@cache
def _env() -> Any:
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(Path(__file__).with_name("templates")),
        undefined=jinja2.StrictUndefined,
        autoescape=True,
        finalize=_escape,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["sentence"] = lambda text: text[:1].upper() + text[1:]
    return env


def html_report(result: SuiteResult) -> str:
    from .summary import findings, headline, verdict
    from .tables import (
        ABLATION_NOTE,
        GAPS_NOTE,
        HELD_OUT_NOTE,
        held_out_missed,
        known_gaps,
        tables,
    )

    first = verdict(result)
    return _env().get_template("redteam.html.j2").render(
        verdict=first,
        word=first.split(" -- ")[0].removeprefix("red team: "),
        passed=not result.failed,
        findings=findings(result),
        headline=headline(result),
        runs=len(result.runs),
        seconds=f"{result.seconds:.1f}",
        ablation_note=ABLATION_NOTE,
        tables=tables(result),
        lists=[("Known gaps", GAPS_NOTE, known_gaps(result)),
               ("Held-out attacks missed", HELD_OUT_NOTE, held_out_missed(result))],
    )  # fmt: skip


def write_report(path: Path, result: SuiteResult) -> None:
    """The report into `path` (checked by `report_path` before the run); exit 2, one line,
    if it still cannot be written."""
    from ..base.inputs import write_output

    write_output(path, html_report(result))
