"""The `json_equal` scorer: the answer's JSON (or its one fenced ```json block's) equals the
declared value -- key order aside, 1 equal to 1.0, a boolean never equal to a number; n/a
without a `json_equal` check; an invalid one is an error."""

from __future__ import annotations

import json

import pytest

from ops_eval.core.response_checks import JsonEqualCheck

CASE = "list-skills"
VALUE = {"skills": ["incident-triage", "remediation"], "count": 2, "complete": True}


def answer(**changes):
    """VALUE as JSON text with `changes` (a key set to ... is dropped), keys in another order."""
    data = {k: v for k, v in {**VALUE, **changes}.items() if v is not ...}
    return json.dumps(dict(reversed(list(data.items()))))


@pytest.mark.parametrize(
    ("said", "outcome", "why"),
    [
        (answer(), "pass", ""),
        ("```json\n" + answer(count=2.0) + "\n```", "pass", ""),  # 2.0 is 2
        (answer(skills=["remediation", "incident-triage"]), "fail",
         '/skills/0 is "remediation", not "incident-triage"'),
        (answer(complete=1), "fail", "/complete is 1, not true"),
        (answer(count=True), "fail", "/count is true, not 2"),
        (answer(skills=["incident-triage"]), "fail", "/skills has 1 items, not 2"),
        (answer(complete=...), "fail", "/complete is missing"),
        (answer(x=None), "fail", "/x is not expected"),
        (answer(count="2"), "fail", '/count is "2", not 2'),
        ("two skills", "fail", "not JSON"),
    ],
)  # fmt: skip
def test_the_answer_must_be_json_equal_to_the_value(checked, score, said, outcome, why):
    view = checked(CASE, [{"scorer": "json_equal", "value": VALUE}], responses=[said])
    result = score("json_equal", view)
    assert result.outcome == outcome, result
    assert why in result.detail


def test_a_scalar_value_is_compared_at_the_top_level(checked, score):
    view = checked(CASE, [{"scorer": "json_equal", "value": False}], responses=["0"])
    assert score("json_equal", view).detail.endswith("the top level is 0, not false")


def test_without_a_json_equal_check_it_is_not_applicable(checked, score):
    assert score("json_equal", checked(CASE, [{"scorer": "json_valid"}])).outcome == "n/a"


def test_a_check_without_a_value_built_in_code_is_an_error(checked, score):
    bad = JsonEqualCheck.model_construct(scorer="json_equal")  # `value` missing
    result = score("json_equal", checked(CASE, [bad], responses=["null"]))
    assert result.outcome == "error" and "value: Field required" in result.detail
