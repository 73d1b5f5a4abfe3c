"""The `numeric_range` scorer: the number at a JSON pointer of the answer's JSON -- or, with no
pointer, the whole answer as one number -- lies in lo..hi, inclusive; n/a without such a
check; a reversed range in a check built in code is an error."""

from __future__ import annotations

import pytest

from ops_eval.core.response_checks import NumericRangeCheck

CASE = "list-skills"
REPORT = '{"skills": ["incident-triage", "remediation"], "count": 2, "stats": {"a/b": 0.5}}'


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


HUGE = "9" * 400


@pytest.mark.parametrize(
    ("check", "answer", "outcome", "why"),
    [
        # an integer too large for a float is a number out of range, never an OverflowError
        ({"range": "0..10", "path": "/n"}, '{"n": ' + HUGE + "}", "fail", "is outside 0..10"),
        ({"range": "0..10", "path": "/n"}, '{"n": -' + HUGE + "}", "fail", "is outside 0..10"),
        ({"range": "0..10"}, HUGE, "fail", "is outside 0..10"),
        ({"range": "0..10", "path": "/n"}, '{"n": 1e400}', "fail", "1e400 is outside 0..10"),
        ({"range": "0..1", "path": "/n"}, '{"n": 1e-400}', "pass", ""),  # tiny, not 0.0
        ({"range": "0..10"}, "1e99999999999999999999", "fail", "is outside 0..10"),
        ({"range": "0..10"}, "1e-99999999999999999999", "pass", ""),
        ({"range": "0..10", "path": "/n"}, '{"n": ' + "9" * 5000 + "}", "fail", "is outside"),
        # exact, not through a float: 1 + 1e-20 is above 1, and 0.1 is not 0.1000000000000000055
        ({"range": "0..1"}, "1.00000000000000000001", "fail", "is outside 0..1"),
        ({"range": "0.1..0.1", "path": "/n"}, '{"n": 0.1}', "pass", ""),
        ({"range": "0..1", "path": "/n"}, '{"n": 1.0}', "pass", ""),
        # a huge bound is a bound like any other
        ({"range": f"0..{HUGE}", "path": "/n"}, '{"n": ' + HUGE + "}", "pass", ""),
        ({"range": f"-{HUGE}..-1"}, "-5", "pass", ""),
        ({"range": f"{HUGE}..1e401"}, "5", "fail", "5 is outside"),
        ({"range": "1e-99999999999999999999..1"}, "0", "fail", "0 is outside"),
    ],
)  # fmt: skip
def test_a_number_of_any_size_is_compared_exactly_never_a_crash(
    checked, score, check, answer, outcome, why
):
    view = checked(CASE, [{"scorer": "numeric_range", **check}], responses=[answer])
    result = score("numeric_range", view)
    assert result.outcome == outcome, result
    assert why in result.detail
    assert len(result.detail) < 300, result.detail  # a huge number is shown shortened


@pytest.mark.parametrize("answer", ["５", "٣", "1e５", "2.５"])
def test_only_ascii_digits_make_a_number(checked, score, answer):
    """JSON's rule: a number is written in [0-9]; a full-width or Arabic-Indic digit is not."""
    view = checked(CASE, [{"scorer": "numeric_range", "range": "0..9"}], responses=[answer])
    result = score("numeric_range", view)
    assert result.outcome == "fail", result
    assert "not one number" in result.detail


def test_a_range_written_in_unicode_digits_is_refused():
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match="is not lo..hi with two numbers"):
        NumericRangeCheck(scorer="numeric_range", range="１..３")


@pytest.mark.parametrize(
    "path", ["/skills/０", "/skills/01", "/skills/" + "9" * 5000, "/skills/-1", "/skills/+1"]
)
def test_an_array_index_is_ascii_digits_without_a_leading_zero(checked, score, path):
    """RFC 6901: a full-width digit or a 5,000-digit index names no item, and is no crash."""
    view = checked(
        CASE, [{"scorer": "numeric_range", "range": "0..9", "path": path}], responses=[REPORT]
    )
    result = score("numeric_range", view)
    assert result.outcome == "fail", result
    assert "nothing at /skills/" in result.detail and len(result.detail) < 200
