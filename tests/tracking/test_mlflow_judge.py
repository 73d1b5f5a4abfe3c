"""The judge of `ops-eval mlflow`: MLflow's judge trio is all or nothing (part of it is refused,
naming what is missing), OPENAI_* variables alone never make a judge, the judge is evidence
(not a gate) whose errors stay errors, and a live evaluation grades the set's `llm_judge`
checks with the run's configured judge, as `ops-eval run` does."""

from __future__ import annotations

import json
import re

import pytest
from mlflow_readback import (
    CASES,
    JUDGE_TRIO,
    error_lines,
    feedback,
    oracle,
    prompt_of,
    store_untouched,
)

from ops_eval.models.stand_ins import ScriptedLlm


@pytest.mark.parametrize(
    "given",
    [
        ("MLFLOW_JUDGE_MODEL",),
        ("MLFLOW_JUDGE_API_KEY",),
        ("MLFLOW_JUDGE_MODEL", "MLFLOW_JUDGE_BASE_URL"),
        ("MLFLOW_JUDGE_BASE_URL", "MLFLOW_JUDGE_API_KEY"),
    ],
)
def test_part_of_the_judge_trio_is_refused_naming_the_missing(mlflow_cli, store, ops_env, given):
    for name in given:
        ops_env.setenv(name, "http://127.0.0.1:9/v1" if name.endswith("URL") else "x")
    model = ScriptedLlm(script=[])
    code, out, err = mlflow_cli(["--cases", "open-incidents"], model=model)
    assert code == 2
    (line,) = error_lines(err)
    said = re.search(r"together: (.+) set, (.+) missing", line)
    assert said, line
    assert set(said.group(1).split(", ")) == set(given)
    assert set(said.group(2).split(", ")) == set(JUDGE_TRIO) - set(given)
    assert model.calls == 0 and store_untouched(store)


def test_openai_variables_alone_never_make_a_judge(ops_env):
    from ops_eval.judging.mlflow import judge_config

    for name in JUDGE_TRIO:
        ops_env.delenv(name)
    ops_env.setenv("OPENAI_API_KEY", "sk-test")
    ops_env.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    assert judge_config() is None


def test_the_judge_is_evidence_and_its_errors_stay_errors(track, ops_env, monkeypatch):
    import ops_eval.outputs.tracking.scorers as tracking_scorers
    from ops_eval.judging import Verdict, parse_verdict

    ops_env.setenv("MLFLOW_JUDGE_MODEL", "judge-7b")
    ops_env.setenv("MLFLOW_JUDGE_BASE_URL", "http://127.0.0.1:9/v1")
    ops_env.setenv("MLFLOW_JUDGE_API_KEY", "sk-judge")
    asked = []

    def fake_judge(config, turns):
        asked.append((config, turns))
        if turns[0]["question"] == prompt_of("open-incidents"):
            return parse_verdict("not json")  # raises JudgeError
        return Verdict(passed=True, rationale="states what the reference states")

    monkeypatch.setattr(tracking_scorers, "ask_judge", fake_judge)
    run = track(["--cases", "open-incidents,list-skills"], oracle())
    assert run.code == 0, run.out + run.err
    assert run.model.status.name == "READY"
    assert "judge: openai/judge-7b at http://127.0.0.1:9/v1 (evidence, not a gate)" in run.out
    assert "  judge: mean 1.000 (1 valued, 1 error(s))  (evidence, not a gate)" in run.out
    assert len(asked) == 2
    config, turns = next(a for a in asked if a[1][0]["question"] == prompt_of("list-skills"))
    assert (config.model, config.base_url, config.api_key) == (
        "openai/judge-7b",
        "http://127.0.0.1:9/v1",
        "sk-judge",
    )
    list_skills = next(c for c in CASES if c.eval_id == "list-skills").turns[0]
    assert turns == [
        {
            "question": list_skills.prompt,
            "answer": list_skills.reference,
            "reference": list_skills.reference,
        }
    ]
    refused = feedback(run.trace_of("open-incidents"))["judge"]
    assert refused.value is None and "not a valid JudgeVerdict" in refused.error.error_message
    passed = feedback(run.trace_of("list-skills"))["judge"]
    assert passed.value is True and passed.error is None
    assert passed.source.source_id == "openai/judge-7b"
    assert run.run.data.metrics["judge/mean"] == 1.0


def test_a_live_evaluation_grades_llm_judge_checks_with_the_configured_judge(
    track, ops_env, tmp_path
):
    """`ops-eval mlflow` opens the run's judge as `ops-eval run` does: the case's llm_judge
    check is graded (not skipped), MLflow gets the verdict, and the record says what the judge
    did."""
    from fake_openai import fake_openai, text

    verdict = {"analysis": "cause, fix, approval", "passed": True, "rationale": "all three"}
    with fake_openai(lambda request: text(json.dumps(verdict))) as (base, received):
        ops_env.setenv("OPS_JUDGE_MODEL", "fake-judge")
        ops_env.setenv("OPS_JUDGE_BASE_URL", base)
        ops_env.setenv("OPS_EVAL_CACHE", str(tmp_path / "cache"))
        run = track(["--cases", "recommend-fix-inc-002"], oracle())
    assert run.code == 0, run.out + run.err
    assert len(received) == 1
    assert f"judge: fake-judge@{base}#none" in run.out
    score = run.record.trials[0].scores["llm_judge"]
    assert score.outcome == "pass" and "all three" in score.detail
    assert run.record.judge is not None and run.record.judge.calls == 1
    logged = feedback(run.trace_of("recommend-fix-inc-002"))["llm_judge"]
    assert logged.value is True
