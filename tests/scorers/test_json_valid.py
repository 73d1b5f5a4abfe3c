"""The `json_valid` scorer: the answer is JSON, or one fenced ```json block of JSON; NaN and
Infinity are not JSON; n/a without a `json_valid` check; an invalid one is an error."""

from __future__ import annotations

import pytest

from ops_eval.core.response_checks import JsonValidCheck

CASE = "list-skills"


@pytest.mark.parametrize(
    ("answer", "outcome"),
    [
        ('{"skills": ["incident-triage", "remediation"]}', "pass"),
        ("  [1, 2]\n", "pass"),
        ('```json\n{"skills": []}\n```', "pass"),
        ('```\n{"skills": []}\n```', "pass"),
        ('Here it is:\n```json\n{"skills": []}\n```', "fail"),  # prose around the fence
        ('```json\n{"a": 1}\n```\n```json\n{"b": 2}\n```', "fail"),  # two blocks are not one
        ('{"ratio": NaN}', "fail"),
        ('{"skills": [}', "fail"),
        ("Two skills: incident-triage and remediation.", "fail"),
    ],
)
def test_the_answer_must_be_json(checked, score, answer, outcome):
    view = checked(CASE, [{"scorer": "json_valid"}], responses=[answer])
    result = score("json_valid", view)
    assert result.outcome == outcome, result
    if outcome == "fail":
        assert "not JSON" in result.detail


def test_a_syntax_error_names_line_and_column(checked, score):
    view = checked(CASE, [{"scorer": "json_valid"}], responses=['{\n  "a": }'])
    assert score("json_valid", view).detail == (
        "turn 1: response[0] json_valid: not JSON: line 2, column 8: Expecting value"
    )


def test_without_a_json_valid_check_it_is_not_applicable(checked, score):
    assert score("json_valid", checked(CASE, [])).outcome == "n/a"


def test_a_turn_0_built_in_code_is_an_error(checked, score):
    bad = JsonValidCheck.model_construct(scorer="json_valid", turn=0)  # turns count from 1
    result = score("json_valid", checked(CASE, [bad], responses=["{}"]))
    assert (
        result.outcome == "error"
        and "turn: Input should be greater than or equal to 1" in result.detail
    )
