"""Overrides: who accepted which failed gate verdict, when and why -- appended to the ledger
once, bound to the (candidate, baseline) pair of the verdict they override. Neither the verdict
line nor the run record is ever changed; the gate shows the override as the effective verdict.
"""

from __future__ import annotations

from ...agents.ops_world import normalise_text
from ...base.inputs import bad_input
from ..ledger.chain import Ledger
from ..ledger.entries import (
    DECIDED_FIELDS,
    AnyEntry,
    OverrideEntry,
    VerdictEntry,
    find_override,
    latest_verdict,
    name_problem,
    reason_problem,
)


def checked_name(option: str, value: str) -> str:
    """Who did it, as the ledger keeps it: normalised, visible, printable, at most 100
    characters -- the bar of an approver's name in the audit log (`name_problem`)."""
    name = normalise_text(value)
    problem = name_problem(name)
    if problem:
        raise bad_input(f"{option}: {problem}")
    return name


def checked_reason(option: str, value: str) -> str:
    """Why, as the ledger keeps it: the bar of an approval's rationale (`reason_problem`), so
    an override says something a later reader can weigh."""
    reason = normalise_text(value)
    problem = reason_problem(reason)
    if problem:
        raise bad_input(f"{option}: {problem}")
    return reason


def _against(baseline: str | None) -> str:
    return f"against baseline {baseline}" if baseline else "without a baseline"


def record_override(ledger: Ledger, run_id: str, reason: str, by: str) -> OverrideEntry:
    """`ops-eval gate override RUN --reason TEXT --by NAME`: accept the failed latest verdict
    of `run_id`, once. Refused (exit 2, one line) when no verdict is recorded, the latest one
    passed, it was already overridden, or the reason or name does not say enough. The check
    and the append happen under the ledger's lock."""
    reason = checked_reason("--reason", reason)
    by = checked_name("--by", by)

    def make(entries: list[AnyEntry]) -> OverrideEntry:
        verdict = latest_verdict(entries, run_id)
        if verdict is None:
            raise bad_input(
                f"no gate verdict is recorded for run {run_id}; run `ops-eval gate` on it first"
            )
        if verdict.passed:
            raise bad_input(
                f"run {run_id}: its latest gate verdict ({verdict.verdict}, "
                f"{_against(verdict.baseline)}, at {verdict.at}) passed; there is nothing to "
                "override"
            )
        done = find_override(entries, verdict)
        if done is not None:
            raise bad_input(
                f"run {run_id} {_against(verdict.baseline)} was already overridden by "
                f"{done.by} at {done.at}; an override is recorded once"
            )
        decided = verdict.model_dump(include=set(DECIDED_FIELDS))
        return OverrideEntry(
            **decided,
            verdict=verdict.verdict,
            failures=list(verdict.failures),
            by=by,
            reason=reason,
        )

    return ledger.append_with(make)


def override_for(ledger: Ledger, verdict: VerdictEntry) -> OverrideEntry | None:
    """The override that accepts `verdict` -- the same decision, failing for no reason the
    override did not accept -- for the gate to show as the effective verdict; else None."""
    return find_override(ledger.entries(), verdict)
