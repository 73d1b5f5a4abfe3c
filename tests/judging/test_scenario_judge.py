"""A scenario's `llm_judge` rubric is judged task success: the judge grades the whole
conversation -- the user's plan and messages as the question, the agent's own answers as the
response -- never the user's words or a pause text as the agent's."""

from __future__ import annotations

import json

from fake_openai import fake_openai, text
from ops_eval import RunOptions, execute, read_evalset
from ops_eval.models.stand_ins import OracleLlm, fixed_model
from support import REPO

SCENARIOS = REPO / "evals" / "scenarios.evalset.json"
CASE = "scn-restart-after-risk"
PASS = {"analysis": "Risk explained, then restarted.", "passed": True, "rationale": "as asked"}


def test_the_judge_grades_the_conversation_with_the_agents_answers_as_the_response(
    tmp_path, ops_env
):
    oracle = OracleLlm.from_cases(read_evalset(SCENARIOS).cases)
    with fake_openai(lambda request: text(json.dumps(PASS))) as (base, received):
        ops_env.setenv("OPS_JUDGE_MODEL", "fake-judge")
        ops_env.setenv("OPS_JUDGE_BASE_URL", base)
        ops_env.setenv("OPS_EVAL_CACHE", str(tmp_path / "cache"))
        code, record, _ = execute(
            RunOptions(set_path=SCENARIOS, cases=[CASE], output=tmp_path / "run.json"),
            chooser=fixed_model(oracle, "oracle", "scripted"),
        )
    (trial,) = record.trials
    score = trial.scores["llm_judge"]
    assert score.outcome == "pass" and score.detail.startswith("the conversation: response[0]")
    assert code == 0
    (request,) = received
    asked = request["messages"][1]["content"]
    question, _, response = asked.partition("Answer to message")
    assert "Message 2: Before I approve: what is the risk of restarting it now?" in question
    assert "you first ask what the risk is" in question  # the user's plan
    assert "2: Inventory is already down, so a restart drops no live traffic." in response
    assert "Before I approve" not in response and "Waiting for approval" not in asked
