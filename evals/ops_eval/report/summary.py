"""The terminal summary of a run record, and the wording the other formats share."""

from __future__ import annotations

from ..records import RunRecord


def gate_word(value: bool | None) -> str:
    return {True: "pass", False: "FAIL", None: "no verdict"}[value]


def hat(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def pass_hat(record: RunRecord, sep: str) -> str:
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
            f"{c.case_id:<{width}}{c.category:<13}{c.rate.text:<28}{hat(c.pass_hat_k):<9}"
            f"{c.errors:<8}{gate_word(c.gate)}"
        )
    lines.append("")
    for g in record.categories:
        errors = f", {g.errors} errors" if g.errors else ""
        lines.append(f"category {g.name:<13} {g.rate.text}{errors}")
    for g in record.scorers:
        lines.append(f"scorer   {g.name:<13} {g.rate.text}")
    t = record.total
    lines.append(f"all trials: {t.rate.text}, {t.errors} error(s)" + pass_hat(record, "; "))
    failing = [c.case_id for c in record.cases if c.gate is False]
    silent = [c.case_id for c in record.cases if c.gate is None]
    detail = []
    if failing:
        detail.append(f"{len(failing)} case(s) below the gate: {', '.join(failing)}")
    if silent:
        detail.append(f"{len(silent)} case(s) without a valid trial: {', '.join(silent)}")
    criteria = record.criteria
    lines.append(
        f"gate ({criteria.match_type}, threshold {criteria.threshold} per case): "
        f"{'PASSED' if record.gate_passed else 'FAILED'}"
        + (f" -- {'; '.join(detail)}" if detail else "")
    )
    if record.judge is not None:
        j = record.judge
        budget = f" of {j.budget_tokens}" if j.budget_tokens else ""
        lines.append(
            f"judge: {j.pin}: {j.calls} call(s), {j.cache_hits} cache hit(s), {j.errors} "
            f"error(s), {j.tokens}{budget} tokens, {j.budget_blocked} blocked by the budget"
        )
    lines += [f"note: {n}" for n in record.notes]
    if record.model.caveat:
        lines.append(f"note: {record.model.caveat}")
    return lines
