"""The terminal summary of a run record, and the wording the other formats share."""

from __future__ import annotations

from collections import Counter

from ...results.records import RunRecord

_REASON_SHOWN = 120  # characters of one skip reason shown
_WHY_SHOWN = 160  # characters of one failed case's reason shown
_WHY_CASES = 20  # failed cases given a reason line in the terminal; the report has them all
_FAILING = ("fail", "error")


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


def skipped(record: RunRecord) -> dict[str, tuple[int, str]]:
    """Per scorer with skipped scores: (how many trials skipped it, why) -- read from the trials'
    scores, so a rate of 0/0 that means "not run" is told apart from one that means "n/a".
    Several reasons are each counted: "no judge configured (...) (2); ... (1)"."""
    reasons: dict[str, Counter[str]] = {}
    for trial in record.trials:
        for name, score in trial.scores.items():
            if score.outcome == "skipped":
                why = " ".join(score.detail.split())
                if len(why) > _REASON_SHOWN:
                    why = why[:_REASON_SHOWN] + "…"
                reasons.setdefault(name, Counter())[why] += 1
    out = {}
    for name, counts in reasons.items():
        if len(counts) == 1:
            why = next(iter(counts))
        else:
            why = "; ".join(f"{reason} ({n})" for reason, n in counts.most_common())
        out[name] = (counts.total(), why)
    return out


def skipped_text(record: RunRecord, sep: str = " skipped: ") -> dict[str, str]:
    """`skipped`, each as "2 skipped: why" (`sep` between count and reason)."""
    return {name: f"{n}{sep}{why}" for name, (n, why) in skipped(record).items()}


def server_calls(record: RunRecord) -> dict[str, int] | None:
    """Model calls per server, most first (ties by name, so the order never depends on which
    server answered first), over every turn of every trial that names its servers (a routed
    run: `Turn.servers`); None when no turn does."""
    counts: Counter[str] = Counter()
    routed = False
    for trial in record.trials:
        for turn in trial.turns:
            if turn.servers is not None:
                routed = True
                counts.update(turn.servers)
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return dict(ranked) if routed else None


def server_text(record: RunRecord, quote: str = "") -> str | None:
    """`a 12, b 9 (21 model calls)`, or None when the run was not routed."""
    counts = server_calls(record)
    if counts is None:
        return None
    each = ", ".join(f"{quote}{name}{quote} {n}" for name, n in counts.items()) or "none"
    return f"{each} ({sum(counts.values())} model calls)"


def data_text(record: RunRecord) -> str | None:
    """What a minimal-data run kept, in one line; None for a run that kept everything."""
    kept = record.data
    if kept is None:
        return None
    return (
        f"data: minimal -- prompts, arguments, answers and tool results kept as keyed hashes "
        f"(key id {kept.key_id}), free text as scrubbed labels of at most {kept.label_chars} "
        "characters"
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
    skips = skipped_text(record)
    for g in record.scorers:
        skip = f", {skips[g.name]}" if g.name in skips else ""
        lines.append(f"scorer   {g.name:<13} {g.rate.text}{skip}")
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
    lines += why_failed(record)
    if record.judge is not None:
        j = record.judge
        budget = f" of {j.budget_tokens}" if j.budget_tokens else ""
        lines.append(
            f"judge: {j.pin}: {j.calls} call(s), {j.cache_hits} cache hit(s), {j.errors} "
            f"error(s), {j.tokens}{budget} tokens, {j.budget_blocked} blocked by the budget"
        )
    servers = server_text(record)
    if servers is not None:
        lines.append(f"model calls per server: {servers}")
    if (kept := data_text(record)) is not None:
        lines.append(kept)
    lines += [f"note: {n}" for n in record.notes]
    if record.model.caveat:
        lines.append(f"note: {record.model.caveat}")
    return lines


def why_failed(record: RunRecord) -> list[str]:
    """One line per case below the gate, saying why: its first failed trial's error, or the
    first scorer that gates and did not pass it, with that scorer's detail (the expected and
    the actual call, the missing fact, the forbidden call) -- shortest first, at most
    `_WHY_CASES`. A minimal-data record's details and errors are already its labels."""
    gating = {n for n, rule in (record.scoring or {}).items() if rule.gate != "report"}
    reasons = []
    for case in (c for c in record.cases if c.gate is False):
        mine = [t for t in record.trials if t.case_id == case.case_id]
        trials = sorted(mine, key=lambda t: t.repeat)
        failed = next((t for t in trials if t.status != "passed"), None)
        if failed is None:
            continue
        why = f"error: {failed.error}" if failed.status == "error" and failed.error else ""
        for name, score in failed.scores.items():
            if why:
                break
            if score.outcome in _FAILING and (record.scoring is None or name in gating):
                why = f"{name}: {score.detail or score.outcome}"
        why = " ".join(why.split()) or "failed"
        if len(why) > _WHY_SHOWN:
            why = why[:_WHY_SHOWN] + "…"
        reasons.append(f"  {case.case_id} #{failed.repeat}: {why}")
    reasons.sort(key=len)
    more = len(reasons) - _WHY_CASES
    shown = reasons[:_WHY_CASES] + ([f"  … and {more} more (ops-eval report)"] if more > 0 else [])
    return ["why the cases below the gate failed:", *shown] if reasons else []
