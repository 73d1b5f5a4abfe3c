"""The terminal summary of a run record (what it leads with: `verdict`), and the wording the
other formats share."""

from __future__ import annotations

from collections import Counter

from ...results.records import GroupAggregate, RunRecord
from .verdict import folded, verdict_line, why_lines

_REASON_SHOWN = 120  # characters of one skip reason shown


def gate_word(value: bool | None) -> str:
    return {True: "pass", False: "FAIL", None: "no verdict"}[value]


def rate_text(group: GroupAggregate) -> str:
    """A scorer's rate, or `none judged` when every trial it applied to skipped it (no judge)
    or erred: a rate of 0/0 would read as a measurement."""
    return group.rate.text if group.rate.n else "none judged"


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


def summary_lines(record: RunRecord, report: str | None = None) -> list[str]:
    """The terminal summary, verdict first: the gate's verdict and why each case below it
    failed, then the tables of what applied (`verdict.folded`), then the notes. `report` is
    the report file the caller wrote, named where the reasons are cut short."""
    from tabulate import tabulate

    folding = folded(record)
    lines = ["", verdict_line(record)]
    lines.append(f"all trials: {record.total.rate.text}, {record.total.errors} error(s)")
    lines[-1] += pass_hat(record, "; ")
    lines += why_lines(record, report)
    repeated = record.repeats > 1  # pass^k is the pass rate itself at one repeat
    cases = [
        [c.case_id, c.category, c.rate.text, *([hat(c.pass_hat_k)] if repeated else [])]
        + [c.errors, gate_word(c.gate)]
        for c in record.cases
    ]
    head = ["case", "category", "pass rate", *([f"pass^{record.repeats}"] if repeated else [])]
    head += ["errors", "gate"]
    lines += ["", *tabulate(cases, head, tablefmt="simple").splitlines()]
    groups = [[g.name, g.rate.text, g.errors] for g in record.categories if g.trials]
    lines += ["", *tabulate(groups, ["category", "pass rate", "errors"]).splitlines()]
    skips = skipped_text(record)
    scored = [[g.name, rate_text(g), skips.get(g.name, "")] for g in folding.applied]
    if scored:
        lines += ["", *tabulate(scored, ["scorer", "pass rate", "skipped"]).splitlines()]
    if folding.reports:
        each = "; ".join(f"{name} {text}" for name, text in folding.reports)
        lines.append(f"report only (figures, never a verdict): {each}")
    if (unused := folding.unused_line()) is not None:
        lines.append(unused)
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
