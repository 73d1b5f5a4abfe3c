"""The `trajectory` scorer: ADK's own verdict on the events of a played trial."""

from __future__ import annotations

import asyncio

from ops_eval import ToolCall, play_trial
from ops_eval.scorers.trajectory import trajectory
from ops_eval.testing import OracleLlm, ScriptedLlm


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
