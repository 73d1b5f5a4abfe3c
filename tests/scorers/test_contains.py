"""The `contains` scorer: the declared text occurs in the answer, case-sensitively unless
`ignore_case`; n/a without a `contains` check; an invalid one is an error."""

from __future__ import annotations

import pytest

from ops_eval.core.response_checks import ContainsCheck

CASE = "open-incidents"
ANSWER = "Open: INC-002 (inventory, SEV1) and INC-009 (checkout, SEV2)."


@pytest.mark.parametrize(
    ("check", "outcome"),
    [
        ({"text": "INC-009"}, "pass"),
        ({"text": "inc-009"}, "fail"),
        ({"text": "inc-009", "ignore_case": True}, "pass"),
        ({"text": "INC-007"}, "fail"),
        ({"text": "İNC-002", "ignore_case": True}, "fail"),  # case-folding, not transliteration
    ],
)
def test_the_text_must_occur(checked, score, check, outcome):
    view = checked(CASE, [{"scorer": "contains", **check}], responses=[ANSWER])
    result = score("contains", view)
    assert result.outcome == outcome, result
    if outcome == "fail":
        assert f"{check['text']!r} does not occur in the answer" in result.detail


def test_every_contains_check_must_hold(checked, score):
    checks = [{"scorer": "contains", "text": "INC-002"}, {"scorer": "contains", "text": "INC-404"}]
    result = score("contains", checked(CASE, checks, responses=[ANSWER]))
    assert result.outcome == "fail"
    assert (
        result.detail
        == "turn 1: response[1] contains 'INC-404': 'INC-404' does not occur in the answer"
    )


def test_without_a_contains_check_it_is_not_applicable(checked, score):
    view = checked(CASE, [{"scorer": "not_contains", "text": "INC-404"}], responses=[ANSWER])
    assert score("contains", view).outcome == "n/a"


def test_an_empty_text_built_in_code_is_an_error_not_a_pass(checked, score):
    # Every answer contains "": a check of nothing would pass on anything.
    view = checked(CASE, [ContainsCheck.model_construct(scorer="contains", text="", turn=None)])
    result = score("contains", view)
    assert result.outcome == "error" and "text: is empty" in result.detail
