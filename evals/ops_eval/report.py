"""Reports of a run record: a terminal summary, Markdown (fit for $GITHUB_STEP_SUMMARY) and one
self-contained HTML file with aligned trajectories and a pass-rate chart with error bars."""

from __future__ import annotations

import html
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .records import CallRec, RunRecord, TrialRecord

# -- trajectory alignment ------------------------------------------------------------------------


@dataclass(frozen=True)
class Row:
    status: str  # match | args | missing | extra
    expected: CallRec | None
    actual: CallRec | None

    def diff_keys(self) -> set[str]:
        if self.status != "args" or not self.expected or not self.actual:
            return set()
        keys = set(self.expected.args) | set(self.actual.args)
        return {k for k in keys if self.expected.args.get(k) != self.actual.args.get(k)}


def align(expected: list[CallRec], actual: list[CallRec]) -> list[Row]:
    """Expected calls against actual ones, in IN_ORDER fashion, for reading: matched calls,
    calls whose arguments differ, missing expected calls, and extra actual calls."""
    rows: list[Row] = []
    pos = 0
    for exp in expected:
        same = next(
            (
                i
                for i in range(pos, len(actual))
                if actual[i].name == exp.name and actual[i].args == exp.args
            ),
            None,
        )
        near = (
            same
            if same is not None
            else next((i for i in range(pos, len(actual)) if actual[i].name == exp.name), None)
        )
        if near is None:
            rows.append(Row("missing", exp, None))
            continue
        rows += [Row("extra", None, a) for a in actual[pos:near]]
        rows.append(Row("match" if same is not None else "args", exp, actual[near]))
        pos = near + 1
    rows += [Row("extra", None, a) for a in actual[pos:]]
    return rows


# -- terminal summary --------------------------------------------------------------------------


def _gate(value: bool | None) -> str:
    return {True: "pass", False: "FAIL", None: "no verdict"}[value]


def _hat(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def _pass_hat(record: RunRecord, sep: str) -> str:
    """`pass^k x over n of m cases`, or nothing without repeats."""
    if record.pass_hat_k is None:
        return ""
    return (
        f"{sep}pass^{record.repeats} {record.pass_hat_k:.2f} over {record.pass_hat_k_cases} "
        f"of {len(record.cases)} cases"
    )


def summary_lines(record: RunRecord) -> list[str]:
    width = max([len(c.case_id) for c in record.cases] + [8]) + 2
    lines = [
        "",
        f"{'case':<{width}}{'category':<13}{'pass rate':<28}{f'pass^{record.repeats}':<9}"
        f"{'errors':<8}gate",
    ]
    for c in record.cases:
        lines.append(
            f"{c.case_id:<{width}}{c.category:<13}{c.rate.text:<28}{_hat(c.pass_hat_k):<9}"
            f"{c.errors:<8}{_gate(c.gate)}"
        )
    lines.append("")
    for g in record.categories:
        lines.append(
            f"category {g.name:<13} {g.rate.text}" + (f", {g.errors} errors" if g.errors else "")
        )
    for g in record.scorers:
        lines.append(f"scorer   {g.name:<13} {g.rate.text}")
    t = record.total
    lines.append(f"all trials: {t.rate.text}, {t.errors} error(s)" + _pass_hat(record, "; "))
    failing = [c.case_id for c in record.cases if c.gate is False]
    silent = [c.case_id for c in record.cases if c.gate is None]
    verdict = "PASSED" if record.gate_passed else "FAILED"
    detail = []
    if failing:
        detail.append(f"{len(failing)} case(s) below the gate: {', '.join(failing)}")
    if silent:
        detail.append(f"{len(silent)} case(s) without a valid trial: {', '.join(silent)}")
    lines.append(
        f"gate ({record.criteria['match_type']}, threshold {record.criteria['threshold']} per case): "
        f"{verdict}" + (f" -- {'; '.join(detail)}" if detail else "")
    )
    lines += [f"note: {n}" for n in record.notes]
    if record.model.caveat:
        lines.append(f"note: {record.model.caveat}")
    return lines


# -- markdown ----------------------------------------------------------------------------------


def _call(c: CallRec | None) -> str:
    """A call as a Markdown code span; empty for no call."""
    if c is None:
        return ""
    return f"`{c.name}({', '.join(f'{k}={json.dumps(v)}' for k, v in c.args.items())})`"


def _first_failing(record: RunRecord, case_id: str) -> TrialRecord | None:
    mine = [t for t in record.trials if t.case_id == case_id]
    return next((t for t in mine if t.status != "passed"), mine[0] if mine else None)


def markdown(record: RunRecord) -> str:
    m = record.model
    out = [
        f"# Ops Copilot eval: {'PASSED' if record.gate_passed else 'FAILED'}",
        "",
        f"- model: `{m.name}` ({m.reason})" + (f" -- {m.caveat}" if m.caveat else ""),
        f"- eval set: `{record.eval_set}` (sha256 {record.eval_set_sha256[:12]}), "
        f"seed {record.seed_sha256[:12]}, tools {record.tool_schema_sha256[:12]}, "
        f"commit {(record.git_commit or 'unknown')[:12]}{' (dirty)' if record.git_dirty else ''}",
        f"- criteria: `{record.criteria['match_type']}`, threshold {record.criteria['threshold']}; "
        f"{record.repeats} repeat(s), concurrency {record.concurrency}, {record.seconds:.1f} s",
        f"- all trials: **{record.total.rate.text}**, {record.total.errors} error(s)"
        + _pass_hat(record, ", "),
        "",
        "| case | category | pass rate (95% CI) | pass^k | errors | gate |",
        "|---|---|---|---|---|---|",
    ]
    for c in record.cases:
        out.append(
            f"| `{c.case_id}` | {c.category} | {c.rate.text} | {_hat(c.pass_hat_k)} | "
            f"{c.errors} | {_gate(c.gate)} |"
        )
    out += ["", "| category | pass rate (95% CI) | errors |", "|---|---|---|"]
    out += [f"| {g.name} | {g.rate.text} | {g.errors} |" for g in record.categories]
    out += ["", "| scorer | pass rate (95% CI) |", "|---|---|"]
    out += [f"| {g.name} | {g.rate.text} |" for g in record.scorers]
    problems = [c for c in record.cases if c.gate is not True]
    if problems:
        out += ["", "## Cases below the gate", ""]
    for c in problems:
        trial = _first_failing(record, c.case_id)
        if trial is None:
            continue
        out.append(f"### `{c.case_id}` (trial #{trial.repeat}: {trial.status})")
        if trial.error:
            out += ["", f"error: `{trial.error}`", ""]
            continue
        for name, score in trial.scores.items():
            if not score.passed:
                out.append(f"- {name}: {score.detail}")
        for turn in trial.turns:
            out += [
                "",
                f"turn {turn.index}: {turn.prompt}",
                "",
                "| | expected | actual |",
                "|---|---|---|",
            ]
            for row in align(turn.expected, turn.calls):
                out.append(f"| {row.status} | {_call(row.expected)} | {_call(row.actual)} |")
            out += ["", f"> {turn.response[:400]}"]
    return "\n".join(out) + "\n"


# -- html --------------------------------------------------------------------------------------

_CSS = """
body{font:14px/1.45 system-ui,sans-serif;margin:2rem;color:#222;max-width:75rem}
h1 .pass{color:#1a7f37} h1 .fail{color:#cf222e}
table{border-collapse:collapse;margin:.5rem 0 1rem} td,th{border:1px solid #d0d7de;padding:.25rem .5rem;text-align:left;vertical-align:top}
th{background:#f6f8fa} code{font-size:12px}
tr.match td:first-child{color:#1a7f37} tr.missing td{background:#ffebe9} tr.extra td{background:#fff8c5}
tr.args td{background:#ddf4ff} mark{background:#ffd33d;padding:0 .15rem}
.gate-pass{color:#1a7f37;font-weight:600} .gate-fail{color:#cf222e;font-weight:600} .gate-none{color:#9a6700}
details{margin:.25rem 0 .75rem} summary{cursor:pointer} .muted{color:#57606a}
"""


def _e(value: Any) -> str:
    return html.escape(str(value))


def _call_html(call: CallRec | None, marked: set[str]) -> str:
    if call is None:
        return ""
    args = []
    for k, v in call.args.items():
        text = f"{_e(k)}={_e(json.dumps(v))}"
        args.append(f"<mark>{text}</mark>" if k in marked else text)
    return f"<code>{_e(call.name)}({', '.join(args)})</code>"


def chart_svg(record: RunRecord) -> str:
    """Pass rate per category, with 95% Wilson intervals as error bars."""
    groups = record.categories
    bar, gap, height, top, left = 46, 28, 200, 20, 40
    width = left + len(groups) * (bar + gap) + gap
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height + top + 50}" '
        f'role="img" aria-label="pass rate per category">'
    ]
    for frac in (0, 0.25, 0.5, 0.75, 1):
        y = top + height * (1 - frac)
        parts.append(f'<line x1="{left}" x2="{width}" y1="{y}" y2="{y}" stroke="#eee"/>')
        parts.append(
            f'<text x="{left - 6}" y="{y + 4}" font-size="11" text-anchor="end">{frac:.0%}</text>'
        )
    for i, g in enumerate(groups):
        x = left + gap + i * (bar + gap)
        n = g.rate.n
        p = g.rate.passed / n if n else 0
        y = top + height * (1 - p)
        parts.append(
            f'<rect x="{x}" y="{y}" width="{bar}" height="{top + height - y}" fill="#54aeff">'
            f"<title>{_e(g.name)}: {_e(g.rate.text)}</title></rect>"
        )
        cx = x + bar / 2
        lo_y, hi_y = top + height * (1 - g.rate.ci_low), top + height * (1 - g.rate.ci_high)
        parts.append(
            f'<line x1="{cx}" x2="{cx}" y1="{lo_y}" y2="{hi_y}" stroke="#222" stroke-width="1.5"/>'
        )
        for yy in (lo_y, hi_y):
            parts.append(
                f'<line x1="{cx - 7}" x2="{cx + 7}" y1="{yy}" y2="{yy}" stroke="#222" stroke-width="1.5"/>'
            )
        parts.append(
            f'<text x="{cx}" y="{top + height + 16}" font-size="11" text-anchor="middle">{_e(g.name)}</text>'
        )
        parts.append(
            f'<text x="{cx}" y="{top + height + 30}" font-size="10" text-anchor="middle" fill="#57606a">'
            f"{g.rate.passed}/{n}</text>"
        )
    parts.append("</svg>")
    return "".join(parts)


def _trial_html(trial: TrialRecord) -> str:
    head = f"trial #{trial.repeat}: {trial.status} in {trial.seconds:.1f} s"
    body = []
    if trial.error:
        body.append(f"<p>error: <code>{_e(trial.error)}</code></p>")
    if trial.scores:
        body.append("<table><tr><th>scorer</th><th>result</th><th>detail</th></tr>")
        for name, s in trial.scores.items():
            cls = "gate-pass" if s.passed else "gate-fail"
            body.append(
                f"<tr><td>{_e(name)}</td><td class='{cls}'>{'pass' if s.passed else 'fail'}</td>"
                f"<td>{_e(s.detail)}</td></tr>"
            )
        body.append("</table>")
    for turn in trial.turns:
        score = "" if turn.trajectory_score is None else f", trajectory {turn.trajectory_score:.0f}"
        body.append(
            f"<p><b>turn {turn.index}</b>{score}, {turn.seconds:.1f} s, "
            f"{turn.prompt_tokens}+{turn.output_tokens} tokens: {_e(turn.prompt)}</p>"
        )
        body.append("<table><tr><th></th><th>expected</th><th>actual</th></tr>")
        for row in align(turn.expected, turn.calls):
            marked = row.diff_keys()
            body.append(
                f"<tr class='{row.status}'><td>{row.status}</td><td>{_call_html(row.expected, marked)}</td>"
                f"<td>{_call_html(row.actual, marked)}</td></tr>"
            )
        body.append("</table>")
        if turn.pending:
            body.append(
                "<p class='muted'>waiting for approval at the end of the turn: "
                + ", ".join(_call_html(c, set()) for c in turn.pending)
                + "</p>"
            )
        if turn.answered:
            body.append(
                f"<p class='muted'>runner answered the pause: {_e(', '.join(turn.answered))}</p>"
            )
        synth = (
            " (synthesised: the turn ended at the approval pause)"
            if turn.response_synthesized
            else ""
        )
        body.append(f"<p>response{synth}:</p><blockquote>{_e(turn.response)}</blockquote>")
        body.append(f"<p class='muted'>reference: {_e(turn.reference)}</p>")
    open_attr = " open" if trial.status != "passed" else ""
    return f"<details{open_attr}><summary>{_e(head)}</summary>{''.join(body)}</details>"


def html_report(record: RunRecord) -> str:
    m = record.model
    verdict = "PASSED" if record.gate_passed else "FAILED"
    parts = [
        "<!doctype html><html><head><meta charset='utf-8'>",
        f"<title>Ops Copilot eval {_e(record.run_id)}</title><style>{_CSS}</style></head><body>",
        f"<h1>Ops Copilot eval: <span class='{'pass' if record.gate_passed else 'fail'}'>{verdict}</span></h1>",
        f"<p>model <code>{_e(m.name)}</code> ({_e(m.reason)})"
        + (f"<br><b>{_e(m.caveat)}</b>" if m.caveat else "")
        + "</p>",
        f"<p class='muted'>eval set {_e(record.eval_set)} · sha256 {_e(record.eval_set_sha256[:12])} · "
        f"seed {_e(record.seed_sha256[:12])} · tools {_e(record.tool_schema_sha256[:12])} · "
        f"commit {_e((record.git_commit or 'unknown')[:12])}{' (dirty)' if record.git_dirty else ''} · "
        f"{_e(record.criteria['match_type'])} threshold {_e(record.criteria['threshold'])} · "
        f"{record.repeats} repeat(s) · {record.seconds:.1f} s · started {_e(record.started_at)}</p>",
        f"<p>all trials: <b>{_e(record.total.rate.text)}</b>, {record.total.errors} error(s)"
        + _pass_hat(record, ", ")
        + "</p>",
        "<h2>Pass rate per category (95% Wilson interval)</h2>",
        chart_svg(record),
        "<h2>Scorers</h2><table><tr><th>scorer</th><th>pass rate (95% CI)</th></tr>",
    ]
    parts += [f"<tr><td>{_e(g.name)}</td><td>{_e(g.rate.text)}</td></tr>" for g in record.scorers]
    parts.append(
        "</table><h2>Cases</h2><table><tr><th>case</th><th>category</th><th>pass rate</th>"
        "<th>pass^k</th><th>errors</th><th>gate</th></tr>"
    )
    for c in record.cases:
        cls = {True: "gate-pass", False: "gate-fail", None: "gate-none"}[c.gate]
        parts.append(
            f"<tr><td><a href='#{_e(c.case_id)}'>{_e(c.case_id)}</a></td><td>{_e(c.category)}</td>"
            f"<td>{_e(c.rate.text)}</td><td>{_hat(c.pass_hat_k)}</td><td>{c.errors}</td>"
            f"<td class='{cls}'>{_gate(c.gate)}</td></tr>"
        )
    parts.append("</table>")
    for c in record.cases:
        parts.append(
            f"<h3 id='{_e(c.case_id)}'>{_e(c.case_id)} <span class='muted'>({_e(c.category)}, "
            f"{_e(c.rate.text)})</span></h3>"
        )
        parts += [_trial_html(t) for t in record.trials if t.case_id == c.case_id]
    parts.append("</body></html>")
    return "\n".join(parts)


def latest_run(runs_dir: Path) -> Path | None:
    found = sorted(runs_dir.glob("*.json"), key=lambda p: p.stat().st_mtime)
    return found[-1] if found else None
