"""The `numeric_range` scorer: the number at a JSON pointer of the answer's JSON -- or, with no
pointer, the whole answer as one number -- lies in lo..hi, inclusive; n/a without such a
check; a reversed range in a check built in code is an error."""

from __future__ import annotations

import pytest
from response_views import checked_with, scorer_with

from ops_eval.response_checks import NumericRangeCheck

CASE = "list-skills"
REPORT = '{"skills": ["incident-triage", "remediation"], "count": 2, "stats": {"a/b": 0.5}}'


@pytest.fixture
def checked(trial):
    return checked_with(trial)


@pytest.fixture
def score(plan):
    return scorer_with(plan)


@pytest.mark.parametrize(
    ("check", "answer", "outcome", "why"),
    [
        ({"range": "1..3", "path": "/count"}, REPORT, "pass", ""),
        ({"range": "2..2", "path": "/count"}, REPORT, "pass", ""),  # inclusive
        ({"range": "3..5", "path": "/count"}, REPORT, "fail", "2 is outside 3..5"),
        ({"range": "0..1", "path": "/stats/a~1b"}, REPORT, "pass", ""),  # RFC 6901 escape
        ({"range": "0..1", "path": "/skills/0"}, REPORT, "fail",
         '/skills/0 is "incident-triage", not a number'),
        ({"range": "0..9", "path": "/missing"}, REPORT, "fail", "nothing at /missing"),
        ({"range": "0..9", "path": "/skills/2"}, REPORT, "fail", "nothing at /skills/2"),
        ({"range": "0..9", "path": "/ok"}, '{"ok": true}', "fail", "/ok is true, not a number"),
        ({"range": "0..9", "path": "/count"}, "```json\n" + REPORT + "\n```", "pass", ""),
        ({"range": "0..9", "path": "/count"}, "count: 2", "fail", "not JSON"),
        ({"range": "1..3"}, " 2 ", "pass", ""),
        ({"range": "-1.5..-0.5"}, "-1e0", "pass", ""),
        ({"range": "1..3"}, "2 skills", "fail", 'the answer is "2 skills", not one number'),
        ({"range": "1..3"}, "4", "fail", "4 is outside 1..3"),
    ],
)  # fmt: skip
def test_the_number_must_lie_in_the_range(checked, score, check, answer, outcome, why):
    view = checked(CASE, [{"scorer": "numeric_range", **check}], responses=[answer])
    result = score("numeric_range", view)
    assert result.outcome == outcome, result
    assert why in result.detail


def test_without_a_numeric_range_check_it_is_not_applicable(checked, score):
    assert score("numeric_range", checked(CASE, [])).outcome == "n/a"


def test_a_reversed_range_built_in_code_is_an_error_never_a_verdict(checked, score):
    bad = NumericRangeCheck.model_construct(scorer="numeric_range", range="3..1", path=None)
    result = score("numeric_range", checked(CASE, [bad], responses=["2"]))
    assert result.outcome == "error"
    assert "range: '3..1' is reversed: lo (3) is above hi (1)" in result.detail
