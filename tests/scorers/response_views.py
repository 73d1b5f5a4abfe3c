"""Helpers for the response scorers' tests: a case's trial view declaring exactly the checks a
test gives, and a scorer applied through the registry, as a run applies it. (A module, not a
conftest: `tests/conftest.py` is imported by name.)"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from pydantic import TypeAdapter

from ops_eval import Score, TrialView, registered
from ops_eval.response_checks import ResponseCheck

_CHECK = TypeAdapter(ResponseCheck)


def declaring(view: TrialView, checks: list[Any]) -> TrialView:
    """`view` with its case's `meta.response` set to `checks`: mappings validated as an eval
    set's are, anything else (a check made with `model_construct`, a raw mapping in a list of
    one) kept as given -- as a Plan built in code may hold it."""
    items = [_CHECK.validate_python(c) if isinstance(c, dict) else c for c in checks]
    view.case = replace(view.case, meta=view.case.meta.model_copy(update={"response": items}))
    return view


def scored(kind: str, view: TrialView, plan: Any) -> Score:
    """The registered scorer `kind`'s Score of the view."""
    return registered()[kind].func(view, plan)


def checked_with(trial: Any) -> Any:
    """checked(case_id, checks, responses=[...]) over the `trial` fixture: that case's view
    declaring `checks` (`declaring`)."""
    return lambda case_id, checks, **kwargs: declaring(trial(case_id, **kwargs), checks)


def scorer_with(plan: Any) -> Any:
    """score(kind, view) under `plan` (`scored`)."""
    return lambda kind, view: scored(kind, view, plan)
