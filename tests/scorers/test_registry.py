"""The registry: every scorer applied to every trial, with n/a, loops and crashes handled."""

from __future__ import annotations

import pytest

from ops_eval import registered, score_trial
from ops_eval.scorers import ScorerCrashed, markdown_table


def test_every_scorer_module_registers_itself():
    assert set(registered()) == {
        "budget",
        "call_order",
        "forbidden_calls",
        "contract_mode",
        "partial_credit",
        "complete",
        "end_state",
        "goal_calls",
        "conversation_end",
        "fault_handling",
        "facts",
        "grounded",
        "tool_policy",
        "trajectory",
        # response checks, one scorer per declared kind (`response_checks.py`)
        "exact",
        "contains",
        "not_contains",
        "regex",
        "json_valid",
        "json_equal",
        "numeric_range",
        "pydantic",
        "llm_judge",
    }
    assert all(s.passes_when and s.needs for s in registered().values())
    assert [n for n, s in registered().items() if s.uses_judge] == ["llm_judge"]
    assert markdown_table().count("\n") == len(registered()) + 1


def test_a_scorer_whose_needs_the_view_lacks_is_not_applicable(trial, plan):
    view = trial("open-incidents")  # built by hand: no ADK events
    scores = score_trial(view, plan)
    assert scores["trajectory"].outcome == "n/a"
    assert scores["trajectory"].detail == "needs events, which this trial lacks"
    assert all(scores[n].passed for n in ("complete", "end_state", "facts", "tool_policy"))


def test_a_looping_agent_fails_the_scorers_its_case_declares_and_only_those(trial, plan):
    view = trial("open-incidents")  # declares two `contains` checks and no judge, no regex...
    view.looped = "the agent looped past 40 model calls"
    scores = score_trial(view, plan)
    for name in ("trajectory", "complete", "tool_policy", "end_state", "contains", "facts"):
        assert scores[name].outcome == "fail", name
        assert scores[name].detail == view.looped
    for name in ("llm_judge", "exact", "regex", "json_valid", "fault_handling", "call_order"):
        assert scores[name].outcome == "n/a", name  # the case declares none: nothing to fail
        assert scores[name].detail.startswith(view.looped + " (no "), scores[name].detail
    assert all("looped past" in scores[n].detail for n in scores)
    view.looped, view.error = None, "ConnectionError: gone"
    assert score_trial(view, plan) == {}


def test_what_a_scorer_says_of_a_case_that_declares_nothing_of_its_kind_is_its_n_a(trial, plan):
    """The loop's n/a and the scorer's own n/a are one declaration (`Scorer.applies`)."""
    view = trial("open-incidents")
    scores = score_trial(view, plan)
    for name, entry in registered().items():
        why = entry.not_applicable(view.case, plan)
        if why is not None and name != "fault_handling":  # it says "no fault was injected"
            assert scores[name].outcome == "n/a" and scores[name].detail == why, name


def test_a_looping_agent_gets_no_fail_from_a_report_scorer(trial, plan):
    # A report scorer never fails (base.Scorer.gate): on a looped trial it has nothing to say.
    view = trial("open-incidents")
    view.looped = "the agent looped past 40 model calls"
    scores = score_trial(view, plan)
    reports = [n for n, s in registered().items() if s.gate == "report"]
    assert "partial_credit" in reports
    assert all(scores[n].outcome == "n/a" for n in reports)


def test_a_crashing_scorer_is_an_error_not_a_verdict(trial, plan):
    view = trial("open-incidents")
    view.events = []  # no invocation where ADK expects one: the trajectory scorer raises
    with pytest.raises(ScorerCrashed, match="scorer trajectory: RuntimeError: 0 invocations"):
        score_trial(view, plan)
