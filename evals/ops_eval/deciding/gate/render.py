"""The gate's decision as text (for people), JSON (for tools) and GitHub workflow commands
(annotations, then the text with command processing stopped). All three say the same thing
from one `Decision`.

Run records are input like any other: a case id or model name may hold a newline or `::`.
Every value is printed on one line (`exits.one_line`), and in the GitHub format the text is fenced
by `::stop-commands::` so that nothing in it can act as a workflow command.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...base.exits import measured_failure, one_line
from ...results.records import RunRecord
from ...results.shared_cases import Shared
from ...validation.gate_config import GateConfig
from .changes import Change
from .compare import Comparison, GateResult
from .headline import COMPARED, headline, not_run, other_failures, subset_line
from .outcomes import Tally

SHOWN_SKIPS = 5  # runs passed over, in the text; the JSON lists them all


@dataclass
class JudgeCheck:
    """What the gate found of the candidate's judge: failures fail the gate, warnings are
    declared, notes say which judge was found calibrated."""

    failures: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, list[str]]:
        return {"failures": self.failures, "warnings": self.warnings, "notes": self.notes}


@dataclass
class Decision:
    """Everything one gate run decided and what it was decided from."""

    candidate: RunRecord
    candidate_path: Path
    baseline: RunRecord | None
    baseline_path: Path | None
    baseline_how: str
    changed: list[Change]
    allowed: list[str]
    config: GateConfig
    config_path: Path
    result: GateResult
    override: Any = None  # the OverrideEntry that applies, if any
    other_overrides: int = 0  # overrides of this run for other decisions (they do not apply)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    unrecorded: str | None = None  # why the ledger could not take the decision
    trust: str = ""  # what the ledger's reader can rely on: signed or not (`ledger.trust`)
    judges: JudgeCheck = field(default_factory=JudgeCheck)
    """The gating scorers' judge: calibrated (notes), skipped (warnings); its failures are in
    `result.failures` too."""
    readers: list[str] = field(default_factory=list)
    """Warnings: gating readers of answers not measured to hold (`reader_check`)."""
    shared: Shared | None = None
    """The cases both runs played at the same hash, and those left out; None when either
    record names no case hashes (compared as a whole)."""

    @property
    def effective_passed(self) -> bool:
        return self.result.passed or self.override is not None

    @property
    def exit_code(self) -> int:
        if self.unrecorded:
            return 3
        return 0 if self.effective_passed else 1


def _shown(value: object) -> str:
    """A value from a record, as one line (`exits.one_line`)."""
    return one_line(str(value))


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"


def _side(side: Tally) -> str:
    low, high = side.interval
    extra = []
    if side.errors:
        extra.append(f"{side.errors} errored")
    if side.silent:
        extra.append(f"{side.silent} with every gating scorer n/a")
    tail = f"; {', '.join(extra)}" if extra else ""
    return f"{side.k}/{side.n} {_pct(side.rate)} (95% CI {low:.1%} to {high:.1%}{tail})"


def _comparison(c: Comparison) -> list[str]:
    lines = [f"  baseline  {_side(c.baseline)}", f"  candidate {_side(c.candidate)}"]
    if c.verdict == "not_compared":
        return [*lines, f"  {COMPARED[c.verdict]}"]
    how = f"paired over {c.pairs} trial pairs" if c.pairs is not None else "independent"
    lines.append(
        f"  difference {c.estimate:+.1%} (95% CI {c.low:+.1%} to {c.high:+.1%}, {how}): "
        f"{COMPARED[c.verdict]}"
    )
    return lines


def _runs(d: Decision) -> list[str]:
    cand = d.candidate
    lines = [
        f"candidate: {cand.run_id} ({d.candidate_path}), model {_shown(cand.model.name)}, "
        f"{_shown(cand.eval_set)}"
    ]
    if d.baseline is None:
        lines.append(f"baseline:  none ({d.baseline_how})")
    else:
        lines.append(
            f"baseline:  {d.baseline.run_id} ({d.baseline_path}), model "
            f"{_shown(d.baseline.model.name)}; chosen: {_shown(d.baseline_how)}"
        )
    for run_id, why in d.skipped[:SHOWN_SKIPS]:
        lines.append(f"  passed over {_shown(run_id)}: {_shown(why)}")
    if len(d.skipped) > SHOWN_SKIPS:
        more = len(d.skipped) - SHOWN_SKIPS
        lines.append(f"  ... and {more} more runs passed over (--format json lists all)")
    c = d.config
    lines.append(
        f"policy:    {d.config_path}: suite threshold {c.suite_threshold:.0%}, regression "
        f"threshold {c.regression_threshold:.0%}, categories {c.categories}, gating scorers "
        f"{', '.join(c.gating_scorers)}"
    )
    return lines


def _changes(d: Decision) -> list[str]:
    if d.baseline is None:
        return []
    cases = d.shared.lines() if d.shared else []
    if not d.changed and not cases:
        return [
            "what changed: nothing (same eval set, cases, seed, criteria, scorers, model, "
            "instruction and tool schema)"
        ]
    lines = ["what changed:"]
    for change in d.changed:
        mark = " (allowed)" if change.name in d.allowed else ""
        kind = "incompatible" if change.blocking else "compared"
        if change.shared:
            kind = "compared over the shared cases"
        lines.append(f"  {_shown(change.show())}  [{kind}{mark}]")
    return lines + [f"  {_shown(line)}  [left out]" for line in cases]


def text_lines(d: Decision) -> list[str]:
    r = d.result
    lines = [_shown(headline(d))]
    if (subset := subset_line(d)) is not None:
        lines.append(_shown(subset))
    lines += _runs(d) + _changes(d)
    if r.set is None:
        lines.append(f"candidate pass rate: {_side(r.candidate)}")
    else:
        lines.append("eval set:")
        lines += _comparison(r.set)
        for c in r.categories:
            lines.append(f"category {_shown(c.name)}:")
            lines += _comparison(c)
        worse, better = r.discordant
        lines.append(
            f"flips: {worse} pass->fail, {better} fail->pass; McNemar exact p = {r.mcnemar_p:.3g}"
        )
        for f in r.flips:
            lines.append(
                _shown(
                    f"  {f.direction} {f.case_id} [{f.category}] {f.baseline} -> {f.candidate}: "
                    f"{f.divergence}"
                )
            )
    lines += [f"note: {_shown(n)}" for n in r.notes]
    lines += [f"judge: {_shown(n)}" for n in d.judges.notes]
    lines += [f"WARNING: {_shown(w)}" for w in d.judges.warnings + d.readers]
    if d.trust:
        lines.append(f"ledger: {_shown(d.trust)}")
    if r.verdict == "inconclusive_noise":
        lines.append(
            "INCONCLUSIVE: the pass rate dropped by more than the threshold, but the 95% interval "
            "of the difference includes 0 -- this could be noise. Rerun with more repeats "
            "(`--repeats`) to tell."
        )
    lines += [f"FAIL: {_shown(failure)}" for failure in other_failures(d)]
    if d.override is not None:
        o = d.override
        lines.append(f"OVERRIDDEN by {_shown(o.by)} at {o.at}: {_shown(o.reason)}")
    elif d.other_overrides and not r.passed:
        lines.append(
            f"note: {d.other_overrides} override(s) of this run accept another decision "
            "(other record files, policy, flags or allowed changes); none applies to this one"
        )
    if d.unrecorded:
        lines.append(f"NOT RECORDED: {_shown(d.unrecorded)}")
    lines.append(lines[0])  # the decision again, where a CI log is read from: its end
    if not d.unrecorded and (last := measured_failure(d.exit_code, "the gate FAILED")):
        lines.append(last)
    return lines


def _comparison_dict(c: Comparison | None) -> dict[str, Any] | None:
    if c is None:
        return None
    return {
        "name": c.name,
        "verdict": c.verdict,
        "paired_over": c.pairs,
        "baseline": c.baseline.as_dict(),
        "candidate": c.candidate.as_dict(),
        "difference": None
        if c.verdict == "not_compared"
        else {"estimate": c.estimate, "low": c.low, "high": c.high},
    }


def _run(record: RunRecord | None, path: Path | None, **extra: str) -> dict[str, Any] | None:
    if record is None:
        return None
    return {
        "run_id": record.run_id,
        "path": str(path),
        "model": record.model.name,
        "eval_set": record.eval_set,
        **extra,
    }


def as_json(d: Decision) -> str:
    r = d.result
    comparison = _comparison_dict(r.set) or {}
    data = {
        "verdict": r.verdict,
        "passed": r.passed,
        "effective_passed": d.effective_passed,
        "exit_code": d.exit_code,
        "recorded": d.unrecorded is None,
        "unrecorded_because": d.unrecorded,
        "failures": r.failures,
        "override": d.override.model_dump() if d.override is not None else None,
        "candidate": _run(d.candidate, d.candidate_path),
        "candidate_rates": r.candidate.as_dict(),
        "baseline": _run(d.baseline, d.baseline_path, chosen=d.baseline_how),
        "baseline_rates": comparison.get("baseline"),
        "difference": comparison.get("difference"),
        "paired_over": comparison.get("paired_over"),
        "changed": [
            {
                "name": c.name,
                "what": c.what,
                "baseline": c.baseline,
                "candidate": c.candidate,
                "blocking": c.blocking,
                "over_shared_cases": c.shared,
                "allowed": c.name in d.allowed,
            }
            for c in d.changed
        ],
        "cases": d.shared.as_dict() if d.shared else None,
        "categories": [_comparison_dict(c) for c in r.categories],
        "flips": [f.__dict__ for f in r.flips],
        "discordant": {"pass_to_fail": r.discordant[0], "fail_to_pass": r.discordant[1]},
        "mcnemar_p": r.mcnemar_p,
        "policy": {"path": str(d.config_path)} | d.config.model_dump(),
        "passed_over": [{"run": i, "why": w} for i, w in d.skipped],
        "notes": r.notes,
        "warnings": d.judges.warnings,
        "reader_warnings": d.readers,
        "judge": d.judges.as_dict(),
        "ledger_trust": d.trust,
    }
    return json.dumps(data, indent=1, allow_nan=False)


def workflow_message(text: str) -> str:
    """A workflow command's message: %, CR and LF escaped as GitHub reads them."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    """A workflow command's property value: also `:` and `,`, which end it."""
    return workflow_message(text).replace(":", "%3A").replace(",", "%2C")


def github_lines(d: Decision) -> list[str]:
    """Annotations for the failures (warnings once overridden), the inconclusive verdict and the
    override; then the text, with workflow commands stopped around it."""
    r = d.result
    title = _property(f"ops-eval gate {d.candidate.run_id}")

    def head(level: str) -> str:
        return f"::{level} title={title}::"

    level = "error" if d.override is None else "warning"
    said = [(level, f) for f in other_failures(d)]
    if (subset := subset_line(d)) is not None:
        said.append((level if not_run(d) else "notice", subset))
    said += [("warning", w) for w in d.judges.warnings + d.readers]
    if r.verdict == "inconclusive_noise":
        said.append(("warning", "inconclusive: the drop exceeds the threshold, the interval "
                     "includes 0"))  # fmt: skip
    if d.override is not None:
        said.append(("notice", f"overridden by {d.override.by}: {d.override.reason}"))
    if d.unrecorded:
        said.append(("error", f"not recorded: {d.unrecorded}"))
    if d.baseline is None:
        said.append(("notice", "no baseline: only the candidate's own checks applied"))
    out = [head(level) + workflow_message(text) for level, text in said]
    token = secrets.token_hex(16)
    return [*out, f"::stop-commands::{token}", *text_lines(d), f"::{token}::"]
