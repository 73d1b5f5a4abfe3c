"""What every response scorer shares (`scorers/_response.py`): which turn a check reads, a turn
with no answer of the agent's own fails (never skipped, never passed), an invalid check is an
error (never a verdict), n/a when nothing of the kind is declared, and the detail names each
failing check by its turn and position."""

from __future__ import annotations

from dataclasses import replace

import pytest

from ops_eval import registered
from ops_eval.core.case_checks import checks_of
from ops_eval.core.response_checks import DETERMINISTIC, KINDS, ContainsCheck, RegexCheck
from ops_eval.scorers.base import Score

TWO_TURNS = "memory-note-then-recall"  # turn 1 saves a note, turn 2 recalls it


def test_every_deterministic_kind_has_its_scorer_and_the_judge_is_declared_only():
    assert set(DETERMINISTIC) <= set(registered())
    assert all(registered()[kind].gate == "all" for kind in DETERMINISTIC)
    assert "llm_judge" in KINDS and "llm_judge" not in DETERMINISTIC


def test_checks_of_gives_the_declared_checks_of_one_kind_in_order(checked):
    view = checked(
        TWO_TURNS,
        [
            {"scorer": "contains", "text": "a"},
            {"scorer": "regex", "pattern": "b"},
            {"scorer": "contains", "text": "c", "turn": 1},
        ],
    )
    assert [c.text for c in checks_of(view.case, "contains")] == ["a", "c"]
    assert checks_of(view.case, "llm_judge") == []


def test_no_check_of_the_kind_is_not_applicable(checked, score):
    view = checked(TWO_TURNS, [{"scorer": "regex", "pattern": "x"}])
    result = score("contains", view)
    assert (result.outcome, result.detail) == ("n/a", "no contains check declared")


def test_a_check_reads_its_own_turn_else_the_last(checked, score):
    responses = ["Saved the note.", "One note on INC-002: pods OOMKilled."]
    last = checked(TWO_TURNS, [{"scorer": "contains", "text": "OOMKilled"}], responses=responses)
    assert score("contains", last).passed
    first = checked(
        TWO_TURNS, [{"scorer": "contains", "text": "OOMKilled", "turn": 1}], responses=responses
    )
    result = score("contains", first)
    assert result.outcome == "fail"
    assert result.detail == (
        "turn 1: response[0] contains 'OOMKilled': 'OOMKilled' does not occur in the answer"
    )


def test_the_detail_lists_every_failing_check_with_turn_and_position(checked, score):
    view = checked(
        TWO_TURNS,
        [
            {"scorer": "regex", "pattern": "INC-\\d+", "turn": 1},
            {"scorer": "contains", "text": "unused"},
            {"scorer": "regex", "pattern": "^Saved"},
            {"scorer": "regex", "pattern": "note"},
        ],
        responses=["Done.", "Pods OOMKilled at 512Mi; one note."],
    )
    result = score("regex", view)
    assert result.outcome == "fail"
    assert result.detail == (
        "turn 1: response[0] regex /INC-\\d+/: no match in the answer; "
        "turn 2: response[2] regex /^Saved/: no match in the answer"
    )


def test_an_answer_the_harness_wrote_at_the_pause_fails_never_skips(checked, score):
    view = checked("restart-needs-approval", [{"scorer": "contains", "text": "approval"}])
    view.turns[0].response = "Waiting for approval: restart_service(name=inventory)."
    view.turns[0].response_synthesized = True  # the text contains "approval", but is not theirs
    result = score("contains", view)
    assert result.outcome == "fail"
    assert "the harness wrote the response at the approval pause" in result.detail


def test_a_turn_the_trial_never_reached_fails(checked, score):
    view = checked(TWO_TURNS, [{"scorer": "not_contains", "text": "secret", "turn": 2}])
    view.turns = view.turns[:1]  # the trial ended after turn 1
    result = score("not_contains", view)
    assert result.outcome == "fail"
    assert (
        result.detail == "turn 2: response[0] not_contains 'secret': the trial never reached turn 2"
    )


def test_an_empty_answer_fails_even_a_check_it_would_satisfy(checked, score):
    view = checked(
        "open-incidents", [{"scorer": "not_contains", "text": "INC-007"}], responses=[" "]
    )
    result = score("not_contains", view)
    assert result.outcome == "fail" and "the agent's answer is empty" in result.detail


@pytest.mark.parametrize(
    ("check", "why"),
    [
        (RegexCheck.model_construct(scorer="regex", pattern="("), "pattern: /(/ does not compile"),
        (ContainsCheck.model_construct(scorer="contains", text=""), "text: is empty"),
        (ContainsCheck(scorer="contains", text="x", turn=3), "turn 3 is not a turn of the case"),
        ({"scorer": "contains", "txt": "x"}, "txt: Extra inputs are not permitted"),
    ],
    ids=["bad-regex", "empty-text", "turn-outside", "unknown-field"],
)
def test_a_check_invalid_at_run_time_is_an_error_not_a_verdict(checked, score, check, why):
    """A Plan built in code bypasses the validator: its checks are validated again, and an
    invalid one gives no verdict -- never a pass, whatever the answer says."""
    kind = check["scorer"] if isinstance(check, dict) else check.scorer
    view = checked(TWO_TURNS, [])
    meta = view.case.meta.model_copy(
        update={"response": [check, ContainsCheck(scorer="contains", text="note")]}
    )
    view.case = replace(view.case, meta=meta)  # as a Plan built in code may hold it
    result = score(kind, view)
    assert result.outcome == "error", result
    assert result.detail.startswith("invalid check(s), no verdict: response[0]")
    assert why in result.detail


def test_error_and_skipped_scores_must_say_why():
    with pytest.raises(ValueError, match="error score must say why"):
        Score(outcome="error")
    with pytest.raises(ValueError, match="skipped score must say why"):
        Score.skipped("  ")
    assert Score.error("judge timed out").counted and not Score.error("x").passed
    assert not Score.skipped("no judge configured").counted
    assert not Score(outcome="n/a").counted and Score.of(False).counted
