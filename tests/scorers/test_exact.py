"""The `exact` scorer: the whole answer, stripped, is the declared text -- no more, no less,
case included; n/a without an `exact` check; an invalid one is an error."""

from __future__ import annotations

import pytest

from ops_eval.core.response_checks import ExactCheck

CASE = "relevance-no-tool"


@pytest.mark.parametrize(
    ("answer", "outcome"),
    [
        ("Paris.", "pass"),
        ("\n  Paris.  \n", "pass"),  # surrounding whitespace is not the answer
        ("paris.", "fail"),  # case counts
        ("Paris. It is the capital.", "fail"),  # more is not exact
        ("Paris", "fail"),
    ],
)
def test_the_stripped_answer_must_equal_the_text(checked, score, answer, outcome):
    view = checked(CASE, [{"scorer": "exact", "text": "Paris."}], responses=[answer])
    result = score("exact", view)
    assert result.outcome == outcome, result
    if outcome == "fail":
        assert result.detail.startswith("turn 1: response[0] exact 'Paris.': the answer is ")


def test_without_an_exact_check_it_is_not_applicable(checked, score):
    view = checked(CASE, [{"scorer": "contains", "text": "Paris"}])
    assert score("exact", view).outcome == "n/a"


def test_an_exact_check_for_a_turn_the_case_lacks_is_an_error(checked, score):
    view = checked(CASE, [ExactCheck(scorer="exact", text="Paris.", turn=2)], responses=["Paris."])
    result = score("exact", view)
    assert (
        result.outcome == "error" and "turn 2 is not a turn of the case (it has 1)" in result.detail
    )
