"""What a run record says that follows from its trials -- its aggregates, its gate, its exit code,
each trial's status -- worked out again from the trials, the criteria and the scorers' rules.
The gate decides from the scores, but `report` and `history` show the stored figures: without
this a record edited by hand (two failing trials made passing) would show figures its trials do
not make, or trials that say otherwise than its figures.

A record of version `CHECKED_FROM` or later says how each of its scorers gated (`scoring`), so
its figures can be worked out as the run worked them out whatever has changed in the code
since; `load_record` refuses one whose stored figures disagree (`disagreement`: the first field
that does). An older record says no rules: it is worked out under today's rules for the scorers
it names, read, and shown with the figures its trials make (`recomputed`); one that names a
scorer this code no longer has cannot be worked out and is read as it was.
"""

from __future__ import annotations

import json
import math
from typing import Any, Protocol

from pydantic_core import to_jsonable_python

from .aggregation import aggregate, record_fields, scorer_rules
from .record_parts import (
    CaseAggregate,
    GateCriteria,
    GroupAggregate,
    Interrupted,
    ScorerRule,
    TrialRecord,
    quoted,
    trial_status,
)

CHECKED_FROM = 5  # the first schema version that records its scorers' rules
DERIVED = (
    "cases",
    "categories",
    "scorers",
    "total",
    "pass_hat_k",
    "pass_hat_k_cases",
    "gate_passed",
    "exit_code",
)
"""The fields of a record that follow from its trials, in the order they are compared."""


class Derivable(Protocol):
    """What of a run record (`records.RunRecord`) its figures are worked out from."""

    schema_version: int
    selected_cases: list[str]
    cases: list[CaseAggregate]
    trials: list[TrialRecord]
    repeats: int
    criteria: GateCriteria
    scorers: list[GroupAggregate]
    scoring: dict[str, ScorerRule] | None
    interrupted: Interrupted | None
    notes: list[str]


def recomputed(record: Derivable) -> dict[str, Any] | None:
    """The `DERIVED` fields as the record's trials make them: its cases (a shard's: those it
    holds) in the order selected, over the trials it holds (an interrupted run's: those that
    finished, with no verdict). None when an older record names a scorer this code lacks."""
    if record.scoring is not None:
        rules = record.scoring
    else:
        try:
            rules = scorer_rules([s.name for s in record.scorers])
        except KeyError:
            return None
    category = {c.case_id: c.category for c in record.cases}
    cases = [(case, category[case]) for case in record.selected_cases if case in category]
    agg = aggregate(cases, record.trials, record.repeats, record.criteria.threshold, rules)
    fields = record_fields(agg, record.trials, rules, interrupted=record.interrupted is not None)
    return {name: fields[name] for name in DERIVED}


def disagreement(
    record: Derivable, made: dict[str, Any], *, statuses: bool = True
) -> tuple[str, str] | None:
    """(where, one line) of the first thing the record says other than its trials make (`made`,
    of `recomputed`): with `statuses`, a trial whose status its scores do not make; then the
    first stored field that differs."""
    for t in record.trials if statuses else ():
        if t.status != "error" and t.status != trial_status(t.scores):
            return "trials", (
                f"trials: case {quoted(t.case_id)} repeat {t.repeat} says {t.status}, its "
                f"scores make it {trial_status(t.scores)}"
            )
    for name in DERIVED:
        stored = to_jsonable_python(getattr(record, name))
        found = _first_difference(name, stored, to_jsonable_python(made[name]))
        if found is not None:
            return found
    return None


class Disagreement(ValueError):
    """A record of version `CHECKED_FROM` or later says other than its trials make."""


def as_its_trials_make_it(record: Derivable) -> dict[str, Any] | None:
    """None when the record says what its trials make (or, older, cannot be worked out); else
    Disagreement for a record of `CHECKED_FROM` or later, or for an older one the fields that
    show it as its trials make it, with a note that says so (its trials' statuses are read as
    they are, as they always were)."""
    made = recomputed(record)
    if made is None:
        return None
    current = record.schema_version >= CHECKED_FROM
    wrong = disagreement(record, made, statuses=current)
    if wrong is None:
        return None
    where, line = wrong
    if current:
        raise Disagreement(f"its figures do not follow from its trials ({line})")
    note = (
        "the stored aggregates do not follow from its trials under today's scorer rules "
        f"(first: {where}); shown as its trials make them"
    )
    return {**made, "notes": [*record.notes, note]}


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 60 else text[:60] + "..."


def _item(value: Any, index: int) -> str:
    """A list entry as a path names it: a case by its id, a group by its name."""
    if isinstance(value, dict):
        for key in ("case_id", "name"):
            if isinstance(value.get(key), str):
                return quoted(value[key])
    return str(index)


def _first_difference(path: str, stored: Any, made: Any) -> tuple[str, str] | None:
    """(path, `<path>: the record says <stored>, its trials make <made>`) at the first leaf
    that differs; numbers within a rounding error of each other are equal."""

    def said(mine: Any, theirs: Any, where: str = path) -> tuple[str, str]:
        return where, f"{where}: the record says {mine}, its trials make {theirs}"

    if isinstance(stored, dict) and isinstance(made, dict):
        for key in dict.fromkeys([*stored, *made]):
            if key not in stored or key not in made:
                mine, theirs = (_shown(d[key]) if key in d else "nothing" for d in (stored, made))
                return said(mine, theirs, f"{path}.{key}")
            found = _first_difference(f"{path}.{key}", stored[key], made[key])
            if found is not None:
                return found
        return None
    if isinstance(stored, list) and isinstance(made, list):
        for index, (mine, theirs) in enumerate(zip(stored, made, strict=False)):
            found = _first_difference(f"{path}[{_item(mine, index)}]", mine, theirs)
            if found is not None:
                return found
        if len(stored) != len(made):
            return said(f"{len(stored)} entries", len(made))
        return None
    if _number(stored) and _number(made):
        close = math.isclose(stored, made, rel_tol=1e-9, abs_tol=1e-12)
        return None if close else said(_shown(stored), _shown(made))
    return None if stored == made else said(_shown(stored), _shown(made))


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)
