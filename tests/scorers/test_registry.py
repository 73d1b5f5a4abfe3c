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
        "fault_handling",
        "facts",
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


def test_a_looping_agent_fails_every_gating_scorer_and_an_error_gets_none(trial, plan):
    view = trial("open-incidents")
    view.looped = "the agent looped past 40 model calls"
    scores = score_trial(view, plan)
    gating = {n for n, s in registered().items() if s.gate != "report"}
    assert {scores[n].outcome for n in gating} == {"fail"}
    assert all("looped past" in scores[n].detail for n in scores)
    view.looped, view.error = None, "ConnectionError: gone"
    assert score_trial(view, plan) == {}


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
