"""The MLflow wrapper of a registry scorer (`tracking.scorers`) hands MLflow each outcome as the
run counts it: an `error` score is an MLflow error with its detail (so a gating metric with one
fails the logged model), a `skipped` score no value with the rationale "skipped: <why>" (left out
of the mean, like n/a), never a pass."""

from __future__ import annotations

import pytest
from trial_records import trial as record_of

from ops_eval import Score

KEY = {"case_id": "a", "repeat": 1}


@pytest.fixture
def feedback(mlflow_installed):
    from ops_eval.outputs.tracking.scorers import Book, _registry_feedback

    def of(name: str, score: Score):
        return _registry_feedback(Book([record_of("a", **{name: score})]), name, KEY)

    return of


def test_an_error_score_is_an_mlflow_error_with_its_detail(feedback):
    result = feedback("regex", Score.error("invalid check(s), no verdict: response[0]"))
    assert result.value is None
    assert result.error is not None
    assert result.error.error_message == "invalid check(s), no verdict: response[0]"


def test_a_skipped_score_has_no_value_and_says_why(feedback):
    result = feedback("contains", Score.skipped("no judge configured"))
    assert (result.value, result.rationale, result.error) == (
        None,
        "skipped: no judge configured",
        None,
    )


def test_pass_and_fail_stay_values(feedback):
    assert feedback("regex", Score.of(True)).value is True
    assert feedback("regex", Score.of(False, "no match")).value is False
