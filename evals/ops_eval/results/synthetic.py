"""Synthetic run records: made-up trial outcomes put through the real aggregation, for the gate's
scenario tests and its power simulation. Test infrastructure; no model played these trials.

A case's outcomes are a list, one per repeat: True passed, False failed (its trajectory score
failed, and it called another tool), None errored. Every other registered scorer passes, except
a judge's (`uses_judge`), which is n/a: no synthetic case declares a judged check.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

from ..core.calls import ToolCall, Turn
from ..scorers import registered
from ..scorers.base import Score
from .aggregation import aggregate, record_fields, scorer_rules
from .follows import CHECKED_FROM
from .records import SCHEMA_VERSION, ModelInfo, RunRecord, TrialRecord
from .shared_cases import HASHED_FROM

Outcomes = Sequence[tuple[str, str, Sequence[bool | None]]]  # (case id, category, per repeat)

HASHES = {
    "eval_set_sha256": "e" * 64,
    "seed_sha256": "5" * 64,
    "tool_schema_sha256": "7" * 64,
    "scorers_sha256": "c" * 64,
}


@cache  # records share these (never changed): a simulation builds hundreds of thousands
def _turn(case_id: str, passed: bool) -> Turn:
    good = ToolCall(name="get_service_status", args={"name": case_id})
    bad = ToolCall(name="list_incidents", args={})
    return Turn(
        index=0,
        prompt=f"status of {case_id}?",
        expected=[good],
        calls=[good] if passed else [bad],
        response="done",
        prompt_tokens=100,
        output_tokens=10,
        seconds=1.0,
    )


@cache
def _scores(passed: bool) -> dict[str, Score]:
    # A judge's scorer is n/a, as it is for a real case that declares no judged check: a pass
    # here would be a judge's verdict with no judge in the record, which the gate refuses.
    scores = {
        name: Score(outcome="n/a", detail="no check declared")
        if entry.uses_judge
        else Score(outcome="pass", value=1.0)
        for name, entry in registered().items()
    }
    if not passed:
        scores["trajectory"] = Score(outcome="fail", value=0.0, detail="expected call missing")
    return scores


def case_hash(case_id: str, edit: int = 0) -> str:
    """A synthetic case's content hash: of its id, and of how many times it was edited."""
    return hashlib.sha256(f"{case_id}#{edit}".encode()).hexdigest()


def _trial(
    case_id: str, category: str, repeat: int, outcome: bool | None, version: Any
) -> TrialRecord:
    hashed = {} if version is None else {"case_version": version[0], "case_sha256": version[1]}
    if outcome is None:
        return TrialRecord(
            case_id=case_id,
            category=category,
            repeat=repeat,
            status="error",
            error="model error",
            **hashed,
        )
    return TrialRecord(
        case_id=case_id,
        category=category,
        repeat=repeat,
        status="passed" if outcome else "failed",
        turns=[_turn(case_id, outcome)],
        scores=_scores(outcome),
        seconds=1.0,
        **hashed,
    )


def synthetic_record(
    outcomes: Outcomes,
    *,
    run_id: str = "synthetic",
    started_at: str = "2026-11-30T00:00:00+00:00",
    model: str = "synthetic/model",
    eval_set: str = "evals/ops.evalset.json",
    instruction: str = "i" * 64,
    schema_version: int = SCHEMA_VERSION,
    versions: Mapping[str, tuple[int | None, str]] | None = None,
    eval_set_cases: int | None = None,
    **hashes: Any,
) -> RunRecord:
    """A run record whose trials are `outcomes`; `hashes` override `HASHES` (to make a change).
    Each case is at version 1 of `case_hash(id)` unless `versions` (id -> (version, hash))
    says otherwise; the set held `eval_set_cases` cases (default: the record's, a run of the
    whole set); a `schema_version` before `HASHED_FROM` names neither."""
    hashed = schema_version >= HASHED_FROM
    known = {case_id: (1, case_hash(case_id)) for case_id, _, _ in outcomes} | dict(versions or {})
    repeats = max((len(o) for _, _, o in outcomes), default=1)
    trials = [
        _trial(case_id, category, r + 1, outcome, known[case_id] if hashed else None)
        for case_id, category, results in outcomes
        for r, outcome in enumerate(results)
    ]
    cases = [(case_id, category) for case_id, category, _ in outcomes]
    rules = scorer_rules()
    agg = aggregate(cases, trials, repeats, 1.0, rules)
    rules_kept = record_fields(agg, trials, rules)
    if schema_version < CHECKED_FROM:  # an older record says no rules
        rules_kept.pop("scoring", None)
    return RunRecord(
        schema_version=schema_version,
        eval_set_cases=(eval_set_cases or len(cases)) if hashed else None,
        run_id=run_id,
        started_at=started_at,
        seconds=float(len(trials)),
        model=ModelInfo(name=model, source="synthetic", reason="a synthetic record"),
        eval_set=eval_set,
        instruction_sha256={"ops_copilot": instruction},
        git_commit=None,
        git_dirty=None,
        criteria={"threshold": 1.0, "match_type": "IN_ORDER"},
        repeats=repeats,
        concurrency=1,
        selected_cases=[case_id for case_id, _ in cases],
        trials=trials,
        **rules_kept,
        **{**HASHES, **hashes},
    )
