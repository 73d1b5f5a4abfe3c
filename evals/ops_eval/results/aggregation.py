"""The fourth stage of a run: trial verdicts into rates with intervals, pass^k, and the gate.

The gate is decided per case as ADK decides it, over the case's valid trials: a `mean`-gated
scorer (ADK's trajectory metric) needs the mean of its values to reach the threshold, every
other scorer must pass in every trial where it applies -- except a `report` scorer, whose mean
is kept beside the gate and never decides it. Error trials are left out of every rate
and pass^k; `n/a` and `skipped` scores are left out of their scorer's rate, while an `error`
score (a scorer that applies but reached no verdict) counts as not passing: it fails its
case's `all` gate and counts 0 in a mean (`Score.counted`). A conversation scenario has no
script for the gate metric to compare: its gate is its goal's scorers, every one passing.

A run's exit code follows from its cases' verdicts (`run_exit_code`): 3 when no trial ran or
every trial errored, else 1 when any case's gate is False, else 3 when any case has no verdict,
else 0; a run stopped before its end has no verdict (3). The runner, merge and the synthetic
records use it, and so does every reader of a record (`follows`): what a record stores of its
trials is what they make under the scorers' rules the record names (`Rules`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from types import MappingProxyType
from typing import Any

from ..base.exits import EXIT_FAILED, EXIT_INFRA, EXIT_OK
from ..base.stats import Rate, pass_hat_k
from ..scorers import Score, registered
from .record_parts import CaseAggregate, GroupAggregate, RecordedRate, ScorerRule, TrialRecord

Rules = Mapping[str, ScorerRule]
"""How each scorer of a run gates a case, by name, in the registry's order."""


def scorer_rules(names: Sequence[str] | None = None) -> Rules:
    """The registry's rules, of every scorer or of `names` (a record's scorers, in its order);
    KeyError when one of `names` is no scorer of this code."""
    rules = _registry_rules()
    return rules if names is None else {n: rules[n] for n in names}


@cache  # the registry is fixed once loaded; a power simulation aggregates many thousand times
def _registry_rules() -> Rules:
    return MappingProxyType(
        {n: ScorerRule(gate=s.gate, cases=s.cases) for n, s in registered().items()}
    )


@dataclass
class Aggregates:
    cases: list[CaseAggregate]
    categories: list[GroupAggregate]
    scorers: list[GroupAggregate]
    total: GroupAggregate
    pass_hat_k: float | None
    pass_hat_k_cases: int

    @property
    def verdicts(self) -> list[bool | None]:
        return [c.gate for c in self.cases]


def _rate(k: int, n: int) -> RecordedRate:
    return RecordedRate.of(Rate.of(k, n))


def _group(name: str, trials: Sequence[TrialRecord]) -> GroupAggregate:
    valid = [t for t in trials if t.status != "error"]
    return GroupAggregate(
        name=name,
        trials=len(trials),
        errors=len(trials) - len(valid),
        rate=_rate(sum(t.status == "passed" for t in valid), len(valid)),
    )


def counted_value(score: Score) -> float:
    """A mean-gated or report scorer's value as its mean counts it: an applicable score
    without a value counts 0 (a trial that looped fails with no value, an error has none),
    never left out."""
    return score.value or 0.0


def _case(
    case_id: str,
    category: str,
    mine: list[TrialRecord],
    repeats: int,
    threshold: float,
    rules: Rules,
) -> CaseAggregate:
    valid = [t for t in mine if t.status != "error"]
    passed = sum(t.status == "passed" for t in valid)
    means: dict[str, float] = {}
    holds: bool | None = True
    scenario = any(t.conversation is not None for t in mine)
    for name, entry in rules.items():
        if scenario and entry.cases == "scripted":
            continue  # a scenario is scored on its goal: the gate metric compares a script
        scores = [t.scores[name] for t in valid if name in t.scores]
        applicable = [s for s in scores if s.counted]
        if entry.gate == "report":  # beside the gate, never part of it
            if applicable:
                means[name] = sum(map(counted_value, applicable)) / len(applicable)
        elif entry.gate == "all":
            holds = holds if all(s.passed for s in applicable) else False
        elif applicable:
            means[name] = sum(map(counted_value, applicable)) / len(applicable)
            holds = holds if means[name] >= threshold else False
        elif holds:  # the gate metric says nothing about this case: no verdict, never a pass
            holds = None
    return CaseAggregate(
        case_id=case_id,
        category=category,
        trials=len(mine),
        errors=len(mine) - len(valid),
        rate=_rate(passed, len(valid)),
        pass_hat_k=pass_hat_k(len(valid), passed, repeats) if repeats > 1 else None,
        means=means,
        gate=holds if valid else None,
    )


def aggregate(
    cases: Sequence[tuple[str, str]],
    trials: Sequence[TrialRecord],
    repeats: int,
    threshold: float,
    rules: Rules | None = None,
) -> Aggregates:
    """`cases`: (case id, category) in run order; `rules`: the scorers' (default: the
    registry's, `scorer_rules`)."""
    rules = scorer_rules() if rules is None else rules
    by_case: dict[str, list[TrialRecord]] = {}
    for t in trials:
        by_case.setdefault(t.case_id, []).append(t)
    per_case = [
        _case(cid, cat, by_case.get(cid, []), repeats, threshold, rules) for cid, cat in cases
    ]
    categories = [
        _group(cat, [t for t in trials if t.category == cat])
        for cat in dict.fromkeys(cat for _, cat in cases)
    ]
    valid = [t for t in trials if t.status != "error"]
    scorers = []
    for name in rules:
        applicable = [t.scores[name] for t in valid if name in t.scores and t.scores[name].counted]
        scorers.append(
            GroupAggregate(
                name=name,
                trials=len(trials),
                errors=len(trials) - len(valid),
                rate=_rate(sum(s.passed for s in applicable), len(applicable)),
            )
        )
    hats = [c.pass_hat_k for c in per_case if c.pass_hat_k is not None]
    # Cases with fewer than k valid trials have no pass^k; the set figure says over how many.
    return Aggregates(
        cases=per_case,
        categories=categories,
        scorers=scorers,
        total=_group("all", trials),
        pass_hat_k=sum(hats) / len(hats) if hats else None,
        pass_hat_k_cases=len(hats),
    )


def no_verdict(trials: Sequence[TrialRecord]) -> str | None:
    """Why the run as a whole has no verdict, if it has none."""
    if not trials:
        return "no trial ran"
    if all(t.status == "error" for t in trials):  # by the side each error names
        from ..playing.sides import every_trial_errored

        return every_trial_errored([t.error for t in trials])
    return None


def run_exit_code(agg: Aggregates, trials: Sequence[TrialRecord]) -> int:
    """The run's exit code: 3 with no verdict at all (`no_verdict`), 1 when any case's gate
    failed, 3 when any case has no verdict, else 0."""
    if no_verdict(trials):
        return EXIT_INFRA
    if any(v is False for v in agg.verdicts):
        return EXIT_FAILED
    return EXIT_INFRA if any(v is None for v in agg.verdicts) else EXIT_OK


def record_fields(
    agg: Aggregates, trials: Sequence[TrialRecord], rules: Rules, interrupted: bool = False
) -> dict[str, Any]:
    """The run record's aggregate and verdict fields: the scorers' rules, the aggregates, the
    gate, the exit code (`run_exit_code`; 3 for a run stopped before its end, `interrupted`)
    and the note saying why there is no verdict, when there is none. What `ops-eval run`
    writes, what a synthetic record must say alike, and what a reader checks a record by."""
    code = EXIT_INFRA if interrupted else run_exit_code(agg, trials)
    why = no_verdict(trials)
    return {
        "scoring": dict(rules),
        "cases": agg.cases,
        "categories": agg.categories,
        "scorers": agg.scorers,
        "total": agg.total,
        "pass_hat_k": agg.pass_hat_k,
        "pass_hat_k_cases": agg.pass_hat_k_cases,
        "gate_passed": code == EXIT_OK,
        "exit_code": code,
        "notes": [why] if why else [],
    }
