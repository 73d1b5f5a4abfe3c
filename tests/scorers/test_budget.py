"""The `budget` scorer: per turn, tool calls, model calls, tokens and seconds within the
declared budget pass; one over fails with the figure; a figure not recorded is said, not
passed silently; no budget is n/a."""

from __future__ import annotations

from dataclasses import replace

import pytest

from ops_eval import ToolCall
from ops_eval.core.contracts import Budget, SetContracts
from ops_eval.scorers.budget import budget

LIST = ToolCall("list_skills")


@pytest.fixture
def trial(uncontracted_trial):
    return uncontracted_trial


def limited(plan, **figures):
    return replace(plan, set_contracts=SetContracts(budget=Budget(**figures)))


def played(view, *, model_calls=3, prompt_tokens=900, output_tokens=100, seconds=2.5):
    """The view's turns with the figures a live play records."""
    for turn in view.turns:
        turn.model_calls, turn.seconds = model_calls, seconds
        turn.prompt_tokens, turn.output_tokens = prompt_tokens, output_tokens
    return view


def test_no_budget_is_not_applicable(trial, plan):
    score = budget(trial("list-skills"), replace(plan, set_contracts=None))
    assert score.outcome == "n/a" and score.detail == "no budget declared"


@pytest.mark.parametrize(
    ("figures", "detail"),
    [
        ({"tool_calls": 2}, "turn 1: 3 tool calls > budget 2"),
        ({"model_calls": 2}, "turn 1: 3 model calls > budget 2"),
        ({"tokens": 999}, "turn 1: 1000 tokens > budget 999"),
        ({"seconds": 2}, "turn 1: 2.5 s > budget 2"),
    ],
)
def test_each_figure_over_budget_fails_with_the_figure(trial, plan, figures, detail):
    view = played(trial("list-skills", calls=[[LIST, LIST, LIST]]))
    score = budget(view, limited(plan, **figures))
    assert score.outcome == "fail" and score.detail == detail


@pytest.mark.parametrize(
    "figures", [{"tool_calls": 3}, {"model_calls": 3}, {"tokens": 1000}, {"seconds": 2.5}]
)
def test_each_figure_within_budget_passes(trial, plan, figures):
    view = played(trial("list-skills", calls=[[LIST, LIST, LIST]]))
    score = budget(view, limited(plan, **figures))
    assert score.outcome == "pass" and score.detail == ""


def test_every_turn_is_checked(trial, plan):
    calls = [[ToolCall("list_skills")], [LIST, LIST]]
    score = budget(trial("memory-note-then-recall", calls=calls), limited(plan, tool_calls=1))
    assert score.detail == "turn 2: 2 tool calls > budget 1"


def test_a_figure_not_recorded_is_said_not_passed(trial, plan):
    """A scripted model reports no tokens; a hand-built turn has no model calls or timing."""
    view = trial("list-skills")
    score = budget(view, limited(plan, tokens=10, model_calls=1, seconds=1))
    assert score.outcome == "n/a"
    assert score.detail == "not checked (not recorded): model calls, tokens, seconds"
    score = budget(view, limited(plan, tool_calls=5, tokens=10))
    assert score.outcome == "pass"
    assert score.detail == "not checked (not recorded): tokens; within budget: tool calls"


def test_a_partial_pass_leads_with_what_was_not_checked(trial, plan):
    """Tokens and seconds unrecorded, tool and model calls within budget: still a pass, but the
    detail's first words say what it did not check."""
    view = played(trial("list-skills"), prompt_tokens=0, output_tokens=0, seconds=0)
    score = budget(view, limited(plan, tool_calls=5, model_calls=5, tokens=10, seconds=1))
    assert score.outcome == "pass"
    assert score.detail.startswith("not checked (not recorded): tokens, seconds")
    assert score.detail.endswith("within budget: tool calls, model calls")


def test_over_budget_with_a_figure_unrecorded_names_both(trial, plan):
    view = played(trial("list-skills", calls=[[LIST, LIST, LIST]]), seconds=0)
    score = budget(view, limited(plan, tool_calls=2, seconds=1))
    assert score.outcome == "fail"
    assert score.detail == "turn 1: 3 tool calls > budget 2; not checked (not recorded): seconds"
