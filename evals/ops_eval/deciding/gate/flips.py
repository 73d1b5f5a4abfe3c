"""The cases whose verdict changed between two runs, and where their trajectories part.

A case passes in a run when every trial of it with a verdict passed. A flip is a case with a
verdict in both runs that passed in one and not the other; McNemar's exact test asks whether the
flips lean one way more than chance would (`stats.mcnemar_exact`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from ...core.calls import ToolCall, Turn
from ...results.records import RunRecord, TrialRecord
from .outcomes import trial_verdict


@dataclass(frozen=True)
class Flip:
    case_id: str
    category: str
    direction: Literal["pass->fail", "fail->pass"]
    baseline: str  # k/n of the case's trials with a verdict
    candidate: str
    divergence: str  # where the trajectories first part, and what failed


def _show(call: ToolCall | None) -> str:
    return "no call" if call is None else call.show()


def first_divergence(base: TrialRecord, cand: TrialRecord) -> str:
    """Where two trials' trajectories first part: the turn and call, with both calls."""
    count = max(len(base.turns), len(cand.turns))
    for i in range(count):
        bt: Turn | None = base.turns[i] if i < len(base.turns) else None
        ct: Turn | None = cand.turns[i] if i < len(cand.turns) else None
        if bt is None or ct is None:
            played = "baseline" if ct is None else "candidate"
            return f"turn {i + 1}: only the {played} played it"
        for j in range(max(len(bt.calls), len(ct.calls))):
            b = bt.calls[j] if j < len(bt.calls) else None
            c = ct.calls[j] if j < len(ct.calls) else None
            if b is None or c is None or not b.same(c):
                return f"turn {i + 1}, call {j + 1}: baseline {_show(b)}, candidate {_show(c)}"
        if [p.show() for p in bt.pending] != [p.show() for p in ct.pending]:
            return f"turn {i + 1}: same calls, different writes left waiting for approval"
    for i, (bt, ct) in enumerate(zip(base.turns, cand.turns, strict=False)):
        if bt.response != ct.response:
            return f"same calls in every turn; the answers differ from turn {i + 1}"
    # Nothing the agent did differs: a scorer's verdict did (a judge's, or the scorers).
    return "same calls and the same answers in every turn; only a verdict differs"


def _per_case(
    record: RunRecord, scorers: Sequence[str]
) -> dict[str, list[tuple[TrialRecord, bool]]]:
    found: dict[str, list[tuple[TrialRecord, bool]]] = {}
    for t in record.trials:
        verdict = trial_verdict(t, scorers)
        if verdict is not None:
            found.setdefault(t.case_id, []).append((t, verdict))
    return found


def case_flips(
    base: RunRecord, cand: RunRecord, scorers: Sequence[str]
) -> tuple[list[Flip], int, int]:
    """(the flips, in the candidate's case order; pass->fail count; fail->pass count)."""
    from ...results.minimal import incomparable

    b_cases, c_cases = _per_case(base, scorers), _per_case(cand, scorers)
    apart = incomparable(base, cand)  # hashes under two keys, or text beside hashes
    flips: list[Flip] = []
    for case in cand.cases:
        b, c = b_cases.get(case.case_id), c_cases.get(case.case_id)
        if not b or not c:
            continue
        b_pass, c_pass = all(v for _, v in b), all(v for _, v in c)
        if b_pass == c_pass:
            continue
        # The trial that shows the change: the failing one on the side that failed.
        failing = next(t for t, v in (c if b_pass else b) if not v)
        other = (b if b_pass else c)[0][0]
        b_trial, c_trial = (other, failing) if b_pass else (failing, other)
        failed = [
            s if failing.scores[s].outcome == "fail" else f"{s} ({failing.scores[s].outcome})"
            for s in scorers
            if s in failing.scores and failing.scores[s].outcome in ("fail", "error")
        ]
        side = "candidate" if b_pass else "baseline"
        flips.append(
            Flip(
                case_id=case.case_id,
                category=case.category,
                direction="pass->fail" if b_pass else "fail->pass",
                baseline=f"{sum(v for _, v in b)}/{len(b)}",
                candidate=f"{sum(v for _, v in c)}/{len(c)}",
                divergence=(
                    f"calls and answers not compared ({apart})"
                    if apart
                    else first_divergence(b_trial, c_trial)
                )
                + f"; {side} trial #{failing.repeat} failed {', '.join(failed)}",
            )
        )
    worse = sum(f.direction == "pass->fail" for f in flips)
    return flips, worse, len(flips) - worse
