"""What the gate's text leads with, in words that each mean one thing. `gate: PASSED` or
`gate: FAILED` is the gate's decision -- its exit code -- and the verdict the docs speak of;
the comparison with a baseline is a `comparison:` (no regression, REGRESSED, INCONCLUSIVE,
improved), never a second "pass". A run of some of its set's cases is said to be a subset
once, with what the gate can and cannot conclude from it, instead of one failure per required
case it did not play. (The ledger's field names, `verdict` among them, stay as they are.)
"""

from __future__ import annotations

from typing import Any, Protocol

from ...results.records import RunRecord
from ...results.shared_cases import Shared
from ...validation.gate_config import GateConfig
from .compare import GateResult, not_run_failure


class Decision(Protocol):
    """What of a decision (`render.Decision`) the headline reads."""

    candidate: RunRecord
    config: GateConfig
    result: GateResult
    shared: Shared | None
    override: Any


COMPARED = {
    "regressed": "REGRESSED",
    "inconclusive_noise": "INCONCLUSIVE (noise)",
    "improved": "improved",
    "pass": "no regression",
    "not_compared": "not compared (no trial with a verdict on one side)",
}
_SHOWN = 4  # required cases named in the subset line


def not_run(d: Decision) -> list[str]:
    """The required cases of the candidate's set it did not play."""
    played = {c.case_id for c in d.candidate.cases}
    return [c for c in d.config.required_for(d.candidate.eval_set) if c not in played]


def other_failures(d: Decision) -> list[str]:
    """The failures the subset line does not already say."""
    said = {not_run_failure(case) for case in not_run(d)}
    return [f for f in d.result.failures if f not in said]


def subset_line(d: Decision) -> str | None:
    """One line for a run of some of its set's cases (or one missing required cases); None
    for a whole run."""
    cand, missing = d.candidate, not_run(d)
    total = cand.eval_set_cases
    if not missing and (total is None or len(cand.cases) >= total):
        return None
    of = f"of the {total} " if total is not None else ""
    line = f"subset: the run played {len(cand.cases)} {of}case(s) of {cand.eval_set}"
    if not missing:
        return line + "; the decision holds for these cases only"
    named = ", ".join(missing[:_SHOWN])
    if len(missing) > _SHOWN:
        named += f" and {len(missing) - _SHOWN} more"
    return (
        f"{line}; {len(missing)} required case(s) were not run ({named}), so the gate can fail "
        "it but never pass it: run them for a decision that can pass"
    )


def comparison_text(d: Decision) -> str:
    r = d.result
    if r.set is None:
        return "no comparison"
    over = f" {d.shared.summary()}" if d.shared is not None else ""
    return f"comparison{over}: {COMPARED[r.verdict]}"


def headline(d: Decision) -> str:
    """`gate: PASSED|FAILED -- why`, the first line of the text: the first reason it failed
    (and how many more), a subset's missing required cases as one reason, and the comparison."""
    compared = comparison_text(d)
    if d.result.passed:
        return f"gate: PASSED -- {compared}"
    reasons = other_failures(d)
    if missing := not_run(d):
        reasons.append(f"{len(missing)} required case(s) not run (a subset)")
    more = f" (and {len(reasons) - 1} more)" if len(reasons) > 1 else ""
    if d.override is not None:
        return f"gate: PASSED (overridden by {d.override.by}; it FAILED: {reasons[0]}{more})"
    return f"gate: FAILED -- {reasons[0]}{more}; {compared}"
