"""The `regex` scorer: the pattern matches somewhere in the answer (`re.search`), with
`ignore_case` as re.IGNORECASE; n/a without a `regex` check; a pattern that does not compile,
in a check built in code, is an error."""

from __future__ import annotations

import pytest

from ops_eval.core.response_checks import RegexCheck

CASE = "incident-detail-inc-002"


@pytest.mark.parametrize(
    ("check", "answer", "outcome"),
    [
        ({"pattern": r"\bSEV ?1\b"}, "INC-002 is a SEV1 inventory incident.", "pass"),
        ({"pattern": r"\bSEV ?1\b"}, "INC-002 is SEV 1.", "pass"),
        ({"pattern": r"\bSEV ?1\b"}, "INC-002 is SEV12.", "fail"),
        ({"pattern": r"\bsev1\b"}, "It is SEV1.", "fail"),
        ({"pattern": r"\bsev1\b", "ignore_case": True}, "It is SEV1.", "pass"),
        ({"pattern": r"^INC-002"}, "Details: INC-002 ...", "fail"),  # search, anchors hold
    ],
)
def test_the_pattern_must_match_somewhere(checked, score, check, answer, outcome):
    view = checked(CASE, [{"scorer": "regex", **check}], responses=[answer])
    result = score("regex", view)
    assert result.outcome == outcome, result
    if outcome == "fail":
        assert result.detail.endswith("no match in the answer")


def test_without_a_regex_check_it_is_not_applicable(checked, score):
    view = checked(CASE, [{"scorer": "contains", "text": "INC-002"}])
    assert score("regex", view).outcome == "n/a"


def test_a_pattern_that_does_not_compile_is_an_error(checked, score):
    view = checked(
        CASE, [RegexCheck.model_construct(scorer="regex", pattern="SEV[1", ignore_case=False)]
    )
    result = score("regex", view)
    assert result.outcome == "error"
    assert "pattern: /SEV[1/ does not compile" in result.detail


@pytest.mark.parametrize("pattern", ["", "x*", "^", "$", "(?:)", "a?", "x|", "(a|)", "\\s*"])
def test_a_pattern_that_matches_the_empty_string_is_refused(pattern):
    """It matches every answer, so it checks nothing."""
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match="matches the empty string, so every answer"):
        RegexCheck(scorer="regex", pattern=pattern)


def test_a_pattern_that_matches_only_with_ignore_case_still_needs_text():
    assert RegexCheck(scorer="regex", pattern="sev1", ignore_case=True).pattern == "sev1"
