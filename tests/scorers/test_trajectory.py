"""The `trajectory` scorer: ADK's own verdict on the events of a played trial, or, for a case
that declares argument matchers, the same mode with each argument under its matcher."""

from __future__ import annotations

import asyncio

from ops_eval import ToolCall, play_trial
from ops_eval.models.stand_ins import OracleLlm, ScriptedLlm
from ops_eval.scorers.trajectory import trajectory


def played(plan, case_id, model):
    case = next(c for c in plan.cases if c.eval_id == case_id)
    return asyncio.run(play_trial(plan, case, 1, model, timeout_s=60))


def test_the_expected_calls_in_order_pass_with_extras_between(plan):
    model = ScriptedLlm(
        script=[
            ToolCall("get_incident", {"incident_id": "INC-002"}),
            ToolCall("list_services"),
            ToolCall("search_service_logs", {"service": "inventory", "query": "OOMKilled"}),
            ToolCall("get_runbook", {"slug": "service-down"}),
            "Done.",
        ]
    )
    score = trajectory(played(plan, "recommend-fix-inc-002", model), plan)
    assert score.passed and score.value == 1.0 and score.per_turn == [1.0]


def test_a_missing_call_fails(plan):
    model = ScriptedLlm(
        script=[ToolCall("get_incident", {"incident_id": "INC-002"}), "It is the config."]
    )
    score = trajectory(played(plan, "recommend-fix-inc-002", model), plan)
    assert score.outcome == "fail" and score.value == 0.0


def test_each_turn_is_scored_and_averaged(plan):
    case = next(c for c in plan.cases if c.eval_id == "memory-note-then-recall")
    oracle = OracleLlm.from_cases([case])
    second = case.turns[1].prompt
    oracle.turns = {**oracle.turns, second: ([], "Nothing noted.")}  # skips the recall
    score = trajectory(played(plan, "memory-note-then-recall", oracle), plan)
    assert score.per_turn == [1.0, 0.0] and score.value == 0.5 and not score.passed


def test_declared_matchers_decide_where_adks_exact_comparison_would_fail(plan):
    # service-status-inventory declares `normalised` on the name; ADK compares it exactly.
    model = ScriptedLlm(script=[ToolCall("get_service_status", {"name": "  Inventory"}), "Down."])
    score = trajectory(played(plan, "service-status-inventory", model), plan)
    assert score.passed and score.per_turn == [1.0]
    assert score.detail == "IN_ORDER with the case's argument matchers, per turn [1.0]"


def test_a_different_id_fails_under_the_matchers_naming_the_argument(plan):
    model = ScriptedLlm(script=[ToolCall("get_service_status", {"name": "checkout"}), "Up."])
    score = trajectory(played(plan, "service-status-inventory", model), plan)
    assert score.outcome == "fail" and score.per_turn == [0.0]
    assert (
        "turn 1: expected get_service_status(name=inventory), got get_service_status(name="
        "checkout): name: 'checkout' is not 'inventory' after normalisation" in score.detail
    )


def test_a_case_without_matchers_stays_adks_verdict(plan):
    model = ScriptedLlm(script=[ToolCall("list_incidents", {"status": "OPEN"}), "None."])
    score = trajectory(played(plan, "open-incidents", model), plan)
    assert score.outcome == "fail" and score.detail == (
        "IN_ORDER, per turn [0.0]; turn 1: expected list_incidents(status=open), got "
        "list_incidents(status=OPEN): status: 'OPEN' is not 'open'"
    )  # ADK's verdict; the detail says which call it failed on
