"""A `Score` holds numbers only: NaN or infinity in its value, per-turn values or figures is
refused where the score is made, so no run record can carry one."""

from __future__ import annotations

import math

import pytest
from pydantic import ValidationError

from ops_eval.scorers.base import Score


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
@pytest.mark.parametrize("field", ["value", "per_turn", "figures"])
def test_nan_and_infinity_are_refused(field, bad):
    values = {"value": bad, "per_turn": [1.0, bad], "figures": {"f1": bad}}
    with pytest.raises(ValidationError, match="finite"):
        Score(outcome="pass", **{field: values[field]})


def test_finite_values_are_kept():
    score = Score(outcome="pass", value=0.5, per_turn=[0.0, 1.0], figures={"f1": 0.5})
    assert (score.value, score.per_turn, score.figures) == (0.5, [0.0, 1.0], {"f1": 0.5})
