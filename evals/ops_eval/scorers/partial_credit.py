"""Partial credit, beside the binary gate and never replacing it: per turn, the precision,
recall and F1 of the calls (name and arguments, under the case's matchers), the first point
where the actual sequence leaves the expected one, and a normalised edit distance.

A report scorer (`gate="report"`): it always passes and never decides a case, so a slide from
1.0 to 0.9 shows in the reports before any case flips.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..core.calls import ToolCall
from ..core.matching import Same, entity_kinds, matcher_for, pairing
from .base import Score, scorer

if TYPE_CHECKING:
    from ..core.plan import Plan
    from ..core.trial import TrialView


def f1(expected: Sequence[ToolCall], actual: Sequence[ToolCall], same: Same) -> tuple[float, ...]:
    """(precision, recall, F1) of one turn's calls, each call paired at most once; a turn that
    expects nothing and makes nothing is perfect."""
    if not expected and not actual:
        return 1.0, 1.0, 1.0
    paired = len(pairing(expected, actual, same))
    precision = paired / len(actual) if actual else 0.0
    recall = paired / len(expected) if expected else 0.0
    both = precision + recall
    return precision, recall, (2 * precision * recall / both if both else 0.0)


def edit_distance(expected: Sequence[ToolCall], actual: Sequence[ToolCall], same: Same) -> float:
    """Levenshtein distance between the call sequences over the longer length: 0 is identical,
    1 shares nothing in place."""
    longest = max(len(expected), len(actual))
    if not longest:
        return 0.0
    row = list(range(len(actual) + 1))
    for i, e in enumerate(expected, start=1):
        prev, row[0] = row[0], i
        for j, a in enumerate(actual, start=1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (not same(e, a)))
    return row[-1] / longest


def divergence(
    expected: Sequence[ToolCall], actual: Sequence[ToolCall], same: Same
) -> tuple[int, str, str] | None:
    """(1-based index, expected, actual) where the sequences first differ; None if they never do."""
    for i in range(max(len(expected), len(actual))):
        e = expected[i] if i < len(expected) else None
        a = actual[i] if i < len(actual) else None
        if e is None or a is None or not same(e, a):
            return i + 1, e.show() if e else "nothing", a.show() if a else "nothing"
    return None


@scorer(
    cases="scripted",
    name="partial_credit",
    needs=("turns",),
    passes_when="always (a report, not a gate): per-turn call precision, recall, F1, first "
    "divergence and edit distance, under the case's matchers",
    gate="report",
)
def partial_credit(trial: TrialView, plan: Plan) -> Score:
    if not trial.turns:
        return Score(outcome="n/a", detail="no turn was played")
    same = matcher_for(plan.contracts(trial.case).args, entity_kinds(trial.case.meta.agent))
    f1s, distances, parts, first = [], [], [], None
    for turn in trial.turns:
        p, r, f = f1(turn.expected, turn.calls, same)
        d = edit_distance(turn.expected, turn.calls, same)
        f1s.append(f)
        distances.append(d)
        parts.append(f"turn {turn.index}: P {p:.2f} R {r:.2f} F1 {f:.2f} edit {d:.2f}")
        if first is None and (where := divergence(turn.expected, turn.calls, same)):
            index, want, got = where
            first = f"first divergence: turn {turn.index}, call {index}: expected {want}, got {got}"
    mean_f1 = sum(f1s) / len(f1s)
    mean_edit = sum(distances) / len(distances)
    detail = "; ".join([*parts, first or "no divergence"])
    return Score(
        outcome="pass",
        detail=detail,
        value=mean_f1,
        per_turn=f1s,
        figures={"f1": mean_f1, "edit_distance": mean_edit},
    )
