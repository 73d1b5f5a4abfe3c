"""The `contract_trajectory` scorer: the gate's mode under the case's argument matchers, with a
declared second mode reported but never gated."""

from __future__ import annotations

from ops_eval import ToolCall
from ops_eval.scorers.contract_trajectory import contract_trajectory


def test_a_normalised_id_passes_where_adk_would_fail(trial, plan):
    calls = [[ToolCall("get_service_status", {"name": "  Inventory"})]]
    score = contract_trajectory(trial("service-status-inventory", calls=calls), plan)
    assert score.passed and score.per_turn == [1.0]


def test_a_different_id_fails_naming_the_argument(trial, plan):
    calls = [[ToolCall("get_service_status", {"name": "checkout"})]]
    score = contract_trajectory(trial("service-status-inventory", calls=calls), plan)
    assert score.outcome == "fail" and score.per_turn == [0.0]
    assert (
        "turn 1: expected get_service_status(name=inventory), got get_service_status(name="
        "checkout): name: 'checkout' is not 'inventory' after normalisation" in score.detail
    )


def test_a_note_that_contains_the_fact_passes_and_one_without_fails(trial, plan):
    note = "Pods were oomkilled at 512Mi after the v42 config."
    good = [
        [ToolCall("save_incident_note", {"incident_id": "INC-002", "note": note})],
        [ToolCall("recall_incident_context", {"incident_id": "inc-002"})],
    ]
    assert contract_trajectory(trial("memory-note-then-recall", calls=good), plan).passed
    bad = [
        [ToolCall("save_incident_note", {"incident_id": "INC-002", "note": "memory issue"})],
        good[1],
    ]
    score = contract_trajectory(trial("memory-note-then-recall", calls=bad), plan)
    assert score.outcome == "fail" and score.per_turn == [0.0, 1.0]


def test_the_second_mode_is_reported_not_gated(trial, plan):
    # recommend-fix-inc-002 declares ANY_ORDER; the gate stays IN_ORDER.
    case = next(c for c in plan.cases if c.eval_id == "recommend-fix-inc-002")
    get, logs, runbook = case.turns[0].calls
    reordered = [[runbook, get, ToolCall(logs.name, {"service": "inventory", "query": "oom"})]]
    score = contract_trajectory(trial("recommend-fix-inc-002", calls=reordered), plan)
    assert score.outcome == "fail"
    assert "ANY_ORDER (reported, not gated): per turn [1.0]" in score.detail
    in_order = [[get, ToolCall(logs.name, {"service": "inventory"}), runbook]]
    assert contract_trajectory(trial("recommend-fix-inc-002", calls=in_order), plan).passed


def test_a_case_without_matchers_or_mode_is_not_applicable(trial, plan):
    score = contract_trajectory(trial("open-incidents"), plan)
    assert score.outcome == "n/a" and "no argument matchers" in score.detail
