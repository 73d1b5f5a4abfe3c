"""The gate's decision as text (for people), JSON (for tools) and GitHub workflow commands
(annotations on the run, then the text). All three say the same thing from one `Decision`."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..records import RunRecord
from .changes import Change
from .compare import Comparison, GateResult, Side
from .config import GateConfig

SHOWN_SKIPS = 5  # runs passed over, in the text; the JSON lists them all

LOUD = {
    "regressed": "REGRESSED",
    "inconclusive_noise": "INCONCLUSIVE (noise)",
    "improved": "improved",
    "pass": "pass",
}


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
    skipped: list[tuple[str, str]] = field(default_factory=list)

    @property
    def effective_passed(self) -> bool:
        return self.result.passed or self.override is not None

    @property
    def exit_code(self) -> int:
        return 0 if self.effective_passed else 1


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"


def _side(side: Side) -> str:
    low, high = side.interval
    extra = f", {side.silent} without a verdict" if side.silent else ""
    return f"{side.k}/{side.n} {_pct(side.rate)} (95% CI {low:.1%} to {high:.1%}{extra})"


def _comparison(c: Comparison) -> list[str]:
    how = "paired" if c.paired else "independent"
    lines = [
        f"  baseline  {_side(c.baseline)}",
        f"  candidate {_side(c.candidate)}",
        f"  difference {c.estimate:+.1%} (95% CI {c.low:+.1%} to {c.high:+.1%}, {how}): "
        f"{LOUD[c.verdict]}",
    ]
    if c.note:
        lines.append(f"  note: {c.note}")
    return lines


def text_lines(d: Decision) -> list[str]:
    r = d.result
    lines = [
        f"candidate: {d.candidate.run_id} ({d.candidate_path}), model {d.candidate.model.name}, "
        f"{d.candidate.eval_set}",
    ]
    if d.baseline is None:
        lines.append(f"baseline:  none ({d.baseline_how})")
    else:
        lines.append(
            f"baseline:  {d.baseline.run_id} ({d.baseline_path}), model {d.baseline.model.name}; "
            f"chosen: {d.baseline_how}"
        )
    for run_id, why in d.skipped[:SHOWN_SKIPS]:
        lines.append(f"  passed over {run_id}: {why}")
    if len(d.skipped) > SHOWN_SKIPS:
        lines.append(
            f"  ... and {len(d.skipped) - SHOWN_SKIPS} more runs passed over "
            "(--format json lists all)"
        )
    lines.append(
        f"policy:    {d.config_path}: suite threshold {d.config.suite_threshold:.0%}, "
        f"regression threshold {d.config.regression_threshold:.0%}, categories "
        f"{d.config.categories}, gating scorers {', '.join(d.config.gating_scorers)}"
    )
    if d.baseline is not None:
        if d.changed:
            lines.append("what changed:")
            for change in d.changed:
                mark = " (allowed)" if change.name in d.allowed else ""
                kind = "incompatible" if change.blocking else "compared"
                lines.append(f"  {change.show()}  [{kind}{mark}]")
        else:
            lines.append("what changed: nothing (same eval set, seed, criteria, scorers, model, "
                         "instruction and tool schema)")  # fmt: skip
    if r.set is None:
        lines.append(f"candidate pass rate: {_side(r.candidate)}")
    else:
        lines.append("eval set:")
        lines += _comparison(r.set)
        for c in r.categories:
            lines.append(f"category {c.name}:")
            lines += _comparison(c)
        worse, better = r.discordant
        lines.append(
            f"flips: {worse} pass->fail, {better} fail->pass; McNemar exact p = {r.mcnemar_p:.3g}"
        )
        for f in r.flips:
            lines.append(
                f"  {f.direction} {f.case_id} [{f.category}] {f.baseline} -> {f.candidate}: "
                f"{f.divergence}"
            )
    lines += [f"note: {n}" for n in r.notes]
    if r.verdict == "inconclusive_noise":
        lines.append(
            "INCONCLUSIVE: the pass rate dropped by more than the threshold, but the 95% interval "
            "of the difference includes 0 -- this could be noise. Rerun with more repeats "
            "(`--repeats`) to tell."
        )
    for failure in r.failures:
        lines.append(f"FAIL: {failure}")
    if d.override is not None:
        o = d.override
        lines.append(f"OVERRIDDEN by {o.by} at {o.at}: {o.reason}")
    verdict = LOUD[r.verdict]
    if d.override is None:
        lines.append(f"gate: {'PASSED' if r.passed else 'FAILED'} -- verdict {verdict}")
    else:
        lines.append(f"gate: PASSED (overridden; recorded FAILED) -- verdict {verdict}")
    return lines


def _comparison_dict(c: Comparison | None) -> dict[str, Any] | None:
    if c is None:
        return None
    return {
        "name": c.name,
        "verdict": c.verdict,
        "paired": c.paired,
        "baseline": c.baseline.as_dict() | {"without_verdict": c.baseline.silent},
        "candidate": c.candidate.as_dict() | {"without_verdict": c.candidate.silent},
        "difference": {"estimate": c.estimate, "low": c.low, "high": c.high},
        "note": c.note or None,
    }


def as_json(d: Decision) -> str:
    r = d.result
    base = _comparison_dict(r.set)
    data = {
        "verdict": r.verdict,
        "passed": r.passed,
        "effective_passed": d.effective_passed,
        "exit_code": d.exit_code,
        "failures": r.failures,
        "override": d.override.model_dump() if d.override is not None else None,
        "candidate": {
            "run_id": d.candidate.run_id,
            "path": str(d.candidate_path),
            "model": d.candidate.model.name,
            "eval_set": d.candidate.eval_set,
        },
        "candidate_rates": (base or {}).get("candidate") or r.candidate.as_dict(),
        "baseline": None
        if d.baseline is None
        else {
            "run_id": d.baseline.run_id,
            "path": str(d.baseline_path),
            "model": d.baseline.model.name,
            "chosen": d.baseline_how,
        },
        "baseline_rates": (base or {}).get("baseline"),
        "difference": (base or {}).get("difference"),
        "changed": [
            {
                "name": c.name,
                "what": c.what,
                "baseline": c.baseline,
                "candidate": c.candidate,
                "blocking": c.blocking,
                "allowed": c.name in d.allowed,
            }
            for c in d.changed
        ],
        "categories": [_comparison_dict(c) for c in r.categories],
        "flips": [f.__dict__ for f in r.flips],
        "discordant": {"pass_to_fail": r.discordant[0], "fail_to_pass": r.discordant[1]},
        "mcnemar_p": r.mcnemar_p,
        "policy": {"path": str(d.config_path)} | d.config.model_dump(),
        "passed_over": [{"run_id": i, "why": w} for i, w in d.skipped],
        "notes": r.notes,
    }
    return json.dumps(data, indent=1)


def _escape(text: str) -> str:
    """A workflow command's message: %, CR and LF escaped as GitHub reads them."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def github_lines(d: Decision) -> list[str]:
    r = d.result
    title = f"ops-eval gate {d.candidate.run_id}"
    out = []
    for failure in r.failures:
        level = "warning" if d.override is not None else "error"
        out.append(f"::{level} title={title}::{_escape(failure)}")
    if r.verdict == "inconclusive_noise":
        out.append(
            f"::warning title={title}::"
            + _escape("inconclusive: the drop exceeds the threshold, the interval includes 0")
        )
    if d.override is not None:
        out.append(
            f"::notice title={title}::"
            + _escape(f"overridden by {d.override.by}: {d.override.reason}")
        )
    return out + text_lines(d)
