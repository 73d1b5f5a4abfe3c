"""A calibration report as text (for people) and JSON (for tools): the same report, every rate
with its denominator and interval, the target and MET or MISSED with each reason, and what the
gate makes of it (`gate`: whether it certifies the judge, and why not).

No cache figure is shown: a calibration never reads the verdict cache, so every verdict was
asked for now (the report's `judge.cache_hits` is always 0)."""

from __future__ import annotations

import json
from pathlib import Path

from ...base.exits import one_line
from .reports import CalibrationReport


def _r(value: float | None) -> str:
    return "undefined" if value is None else f"{value:+.2f}"


def text_lines(
    report: CalibrationReport, appended: Path, line: int, gate: str, trust: str
) -> list[str]:
    """The report for a person; `trust` says whether its log is signed (`Ledger.trust`)."""
    m = report.metrics
    use = report.judge
    kappa = "undefined" if m.kappa is None else f"{m.kappa:.2f}"
    if m.kappa is None and m.kappa_undefined:
        kappa += f" ({m.kappa_undefined})"
    judged = m.items - m.errors
    passes = sum(o.label == "pass" for o in report.outcomes)
    lines = [
        f"judge: {one_line(report.judge_pin)}, prompt {report.prompt_version}",
        f"set: {one_line(report.set_path)} ({m.items} items: {passes} pass, "
        f"{m.items - passes} fail by their labels, given by hand; sha256 "
        f"{report.set_sha256[:12]})",
        f"agreement {m.agreement.show()}  (judge errors count as disagreements)",
        f"kappa {kappa}",
        f"sensitivity {m.sensitivity.show()}  (judge passes among items labelled pass)",
        f"specificity {m.specificity.show()}  (judge fails among items labelled fail)",
        f"confusion (the label is truth, judge pass is positive): tp {m.tp}, fn {m.fn}, "
        f"fp {m.fp}, tn {m.tn}; judge passed {m.judge_passes.show()}",
        f"verbosity: r(answer length, judge pass) = {_r(m.verbosity_r)}; r(answer length, "
        f"label) = {_r(m.verbosity_r_human)}, over {judged} items with a verdict",
        f"errors: {m.errors} of {m.items}",
        f"judge calls {use.calls} (no verdict cache: every item asked now), tokens {use.tokens}"
        + (f" of a budget of {use.budget_tokens}" if use.budget_tokens is not None else "")
        + f", {report.seconds:.0f} s",
    ]
    wrong = [o for o in report.outcomes if not o.agrees]
    if wrong:
        lines.append(f"disagreements ({len(wrong)}):")
        for o in wrong:
            said = o.verdict or f"error: {o.error}"
            lines.append(one_line(f"  {o.id}: labelled {o.label}, judge {said}")[:300])
    if not report.certifies:
        lines.append(f"CERTIFIES NOTHING: {report.certifies_why}")
    target = (
        f"target: agreement >= {report.target.agreement:.2f} and kappa >= "
        f"{report.target.kappa:.2f}: {'MET' if report.meets_target else 'MISSED'}"
    )
    lines.append(target)
    lines += [f"  MISSED: {one_line(reason)}" for reason in report.missed]
    lines.append(f"gate: {one_line(gate)}")
    lines.append(f"report appended to {appended} (line {line})")
    lines.append(f"log: {one_line(trust)}")
    return lines


def as_json(
    report: CalibrationReport, appended: Path, line: int, *, counts: bool, gate: str, trust: str
) -> str:
    """The report as its log line holds it, with where it was appended and what the gate makes
    of it: `counts` (made on the project's calibration set as it is now) and `gate` (the text
    output's `gate:` sentence)."""
    data = report.model_dump(mode="json")
    data["appended_to"] = {"path": str(appended), "line": line, "trust": trust}
    data["gate"] = {"counts": counts, "says": gate}
    return json.dumps(data, indent=1, ensure_ascii=False, allow_nan=False)
