"""The `contract_mode` report scorer: a case's declared second match mode, under its matchers,
reported beside the gate and never failing a trial."""

from __future__ import annotations

from ops_eval import ToolCall, registered
from ops_eval.scorers.contract_mode import contract_mode


def test_the_second_mode_is_reported_not_gated(trial, plan):
    # recommend-fix-inc-002 declares ANY_ORDER; the gate stays IN_ORDER.
    case = next(c for c in plan.cases if c.eval_id == "recommend-fix-inc-002")
    get, logs, runbook = case.turns[0].calls
    reordered = [[runbook, get, ToolCall(logs.name, {"service": "inventory", "query": "oom"})]]
    score = contract_mode(trial("recommend-fix-inc-002", calls=reordered), plan)
    assert score.outcome == "pass" and score.per_turn == [1.0]
    assert "ANY_ORDER (reported, not gated), per turn [1.0]" in score.detail
    assert registered()["contract_mode"].gate == "report"


def test_a_turn_that_misses_the_second_mode_is_a_zero_not_a_fail(trial, plan):
    case = next(c for c in plan.cases if c.eval_id == "recommend-fix-inc-002")
    get, _, runbook = case.turns[0].calls
    score = contract_mode(trial("recommend-fix-inc-002", calls=[[runbook, get]]), plan)
    assert score.outcome == "pass" and score.value == 0.0 and score.per_turn == [0.0]
    assert "turn 1: expected search_service_logs" in score.detail


def test_a_case_without_a_mode_is_not_applicable(trial, plan):
    # service-status-inventory declares matchers but no mode: `trajectory` already applies them.
    for case_id in ("open-incidents", "service-status-inventory"):
        score = contract_mode(trial(case_id), plan)
        assert score.outcome == "n/a" and "no second match mode" in score.detail
