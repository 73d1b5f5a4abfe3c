"""`ops-eval history`'s default format: a table a person reads in a terminal (tabulate). A line
that says how many runs and where the newest stands, then one row per run, oldest first: short
run id, start to the minute (UTC), the eval set's short name, the model (whole), the pass rate
as `passed/n rate% [low–high%]` over valid trials, errors, pass^k when a run had repeats, tokens
(compact), seconds, and what changed since the previous run of its series, in short. A name is
never cut: a long cell is wrapped between its parts. Every column is in `--format csv|json|html`.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import PurePosixPath

from .rows import EVALSET_SUFFIX, FIRST_RUN, HistoryRow

RUN_ID = 12  # characters of a run id shown: a run's own ids are 12 hex digits
WIDTH = 36  # what changed and the notes wrap here, between parts; a name is never cut
LEGEND = "pass rate over valid trials, 95% Wilson interval; every column: --format csv|json|html"


def percent(value: float) -> str:
    """`42%`; `99.6%` or `0.4%` where whole percent would round to all or none."""
    near_an_end = 0 < value < 0.01 or 0.99 < value < 1
    return f"{value:.1%}" if near_an_end else f"{value:.0%}"


def rate(row: HistoryRow) -> str:
    """`3/4 75% [30–95%]`; `0/0 -` when no trial was valid."""
    r = row.rate
    if not r.n:
        return "0/0 -"
    return f"{r.passed}/{r.n} {percent(r.passed / r.n)} [{r.ci_low * 100:.0f}–{r.ci_high:.0%}]"


def compact(count: int) -> str:
    """`950`, `9.3k`, `109k`, `1.2M`."""
    if count < 1000:
        return str(count)
    shown, unit = (count / 1000, "k") if count < 999_500 else (count / 1_000_000, "M")
    return f"{shown:.1f}{unit}" if shown < 9.95 else f"{shown:.0f}{unit}"


def minute(started_at: str) -> str:
    """`2026-12-06 05:28` in UTC (a time without a zone read as UTC); the text as it is when it
    is not a time."""
    try:
        at = datetime.fromisoformat(started_at)
    except ValueError:
        return started_at
    at = at if at.tzinfo else at.replace(tzinfo=UTC)
    return at.astimezone(UTC).strftime("%Y-%m-%d %H:%M")


def set_name(eval_set: str) -> str:
    """`ops` for `evals/ops.evalset.json`; another file's name as it is."""
    name = PurePosixPath(eval_set).name
    return name[: -len(EVALSET_SUFFIX)] if name.endswith(EVALSET_SUFFIX) else name


def moved(row: HistoryRow) -> str:
    """`24 removed`, `1 added, 2 changed`: how the cases moved since the previous run; "" when
    none did or either run names no case hashes."""
    cases = row.cases
    if cases is None:
        return ""
    kinds = (("added", cases.added), ("changed", cases.changed), ("removed", cases.removed))
    return ", ".join(f"{len(items)} {word}" for word, items in kinds if items)


def changed(row: HistoryRow) -> list[str]:
    """What changed since the previous run of the series, in short: `first run`, `nothing`, the
    kinds (`seed`, `tool_schema`; never `model`: a series is one model), the cases by how many
    moved. Each kind's values: `--format json`, or the HTML's tooltip."""
    if row.changed is None:
        return [FIRST_RUN]
    cases = moved(row)
    parts = []
    for change in row.changed:
        if change.name == "cases" and cases:
            parts.append(f"cases: {cases}")
            cases = ""
        else:
            parts.append(change.name)
    if cases:  # the cases' content moved, not which were selected
        parts.append(f"cases: {cases}")
    return parts or ["nothing"]


def packed(parts: Sequence[str], width: int, sep: str = ", ") -> str:
    """`parts` joined by `sep` in lines of about `width` characters, broken between parts (a
    part longer than `width` between its words; a word, a model name, is never cut)."""
    lines: list[str] = []
    for part in parts:
        if lines and len(lines[-1]) + len(sep) + len(part) <= width:
            lines[-1] += sep + part
            continue
        if lines:
            lines[-1] += sep.rstrip()
        lines += textwrap.wrap(part, width, break_long_words=False, break_on_hyphens=False)
    return "\n".join(lines)


def notes(row: HistoryRow) -> list[str]:
    """What else a person should know of the run: interrupted, its conversations, minimal data."""
    said = [row.interrupted] if row.interrupted else []
    if row.conversations:
        c = row.conversations
        said.append(f"{c.count} conversation(s), {c.turns} turns")
    if row.data != "full":
        said.append(f"{row.data} data")
    return said


def pass_hat(row: HistoryRow) -> str:
    """`pass^3 67% (4 cases)`; "" without repeats."""
    if row.pass_hat_k is None:
        return ""
    cases = row.pass_hat_k_cases
    noun = "case" if cases == 1 else "cases"
    return f"pass^{row.repeats} {percent(row.pass_hat_k)} ({cases} {noun})"


def heading(rows: Sequence[HistoryRow]) -> str:
    """`history: 2 runs of evals/ops.evalset.json, newest 0a88960c0358 0/2 (0%)`."""
    sets = sorted({r.eval_set for r in rows})
    newest = rows[-1]
    of = sets[0] if len(sets) == 1 else f"{len(sets)} eval sets"
    models = {r.model for r in rows}
    if len(models) > 1:
        of += f" with {len(models)} models"
    r = newest.rate
    state = f"{r.passed}/{r.n} ({percent(r.passed / r.n)})" if r.n else "no valid trial"
    if len(sets) > 1 or len(models) > 1:
        state = f"({set_name(newest.eval_set)}, {newest.model}) {state}"
    if newest.errors:
        state += f", {newest.errors} error(s)"
    if newest.interrupted:
        state += ", interrupted"
    noun = "run" if len(rows) == 1 else "runs"
    return f"history: {len(rows)} {noun} of {of}, newest {newest.run_id[:RUN_ID]} {state}"


def table(rows: Sequence[HistoryRow]) -> str:
    """The heading, the runs as a table (a column only when some run has a value for it:
    pass^k, notes), and the legend."""
    from tabulate import tabulate

    columns: list[tuple[str, str, list[str]]] = [
        ("run", "left", [r.run_id[:RUN_ID] for r in rows]),
        ("started (UTC)", "left", [minute(r.started_at) for r in rows]),
        ("set", "left", [set_name(r.eval_set) for r in rows]),
        ("model", "left", [r.model for r in rows]),
        ("pass rate [95% CI]", "left", [rate(r) for r in rows]),
        ("errors", "right", [str(r.errors) for r in rows]),
        ("pass^k", "left", [pass_hat(r) for r in rows]),
        ("tokens", "right", [compact(r.total_tokens) for r in rows]),
        ("seconds", "right", [f"{r.seconds:.0f}" for r in rows]),
        ("changed", "left", [packed(changed(r), WIDTH) for r in rows]),
        ("notes", "left", [packed(notes(r), WIDTH, "; ") for r in rows]),
    ]
    shown = [c for c in columns if c[0] not in ("pass^k", "notes") or any(c[2])]
    body = tabulate(
        list(zip(*(cells for _, _, cells in shown), strict=True)),
        headers=[name for name, _, _ in shown],
        colalign=[align for _, align, _ in shown],
        disable_numparse=True,  # a run id of digits and an `e` is no number
        tablefmt="simple",
    )
    return f"{heading(rows)}\n\n{body}\n\n{LEGEND}\n"
