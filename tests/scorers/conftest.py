"""Fixtures of the response scorers' tests, on top of the root conftest's `trial` and `plan`: a
case's trial view declaring exactly the checks a test gives, and a scorer applied through the
registry, as a run applies it."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from pydantic import TypeAdapter

from ops_eval import Score, TrialView, registered
from ops_eval.core.response_checks import ResponseCheck

_CHECK = TypeAdapter(ResponseCheck)


def declaring(view: TrialView, checks: list[Any]) -> TrialView:
    """`view` with its case's `meta.response` set to `checks`: mappings validated as an eval
    set's are, anything else (a check made with `model_construct`, a raw mapping in a list of
    one) kept as given -- as a Plan built in code may hold it."""
    items = [_CHECK.validate_python(c) if isinstance(c, dict) else c for c in checks]
    view.case = replace(view.case, meta=view.case.meta.model_copy(update={"response": items}))
    return view


@pytest.fixture
def checked(trial):
    """checked(case_id, checks, responses=[...]): that case's view declaring `checks`."""
    return lambda case_id, checks, **kwargs: declaring(trial(case_id, **kwargs), checks)


@pytest.fixture
def score(plan):
    """score(kind, view) -> the registered scorer `kind`'s Score of the view under `plan`."""

    def scored(kind: str, view: TrialView) -> Score:
        return registered()[kind].func(view, plan)

    return scored
