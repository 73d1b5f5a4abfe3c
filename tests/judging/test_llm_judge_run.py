"""The `llm_judge` scorer through `ops-eval run`: the real runner and agent with the oracle model
(a deterministic test model answering each case's reference), and a judge scripted behind a real
OpenAI-compatible HTTP route (`fake_openai`). Fail-closed at every edge: no judge is `skipped`
and said, a judge's fail fails the trial, a malformed reply or an unreachable judge is an
`error` that fails the trial, a call the budget refuses is `budget_blocked`; a rerun's verdicts
come from the cache and say so."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fake_openai import fake_openai, text
from ops_eval import RunOptions, execute, load_record, read_evalset, run_summary
from ops_eval.base.exits import EXIT_BAD_INPUT, OpsEvalError
from ops_eval.judging import run as judge_run
from ops_eval.judging.budget import Budget
from ops_eval.models.stand_ins import OracleLlm, fixed_model

JUDGED = "incident-detail-inc-002"
PLAIN = "open-incidents"
RUBRIC = "States that INC-002 is a SEV1 incident on the inventory service."
PASS = {"analysis": "It names INC-002, SEV1, inventory.", "passed": True, "rationale": "all there"}
FAIL = {"analysis": "It omits the severity.", "passed": False, "rationale": "no severity"}


@pytest.fixture
def judged_set(evals: Path) -> Path:
    """The ops set with one `llm_judge` check on one case."""
    path = evals / "ops.evalset.json"
    data = json.loads(path.read_text())
    case = next(c for c in data["eval_cases"] if c["eval_id"] == JUDGED)
    case["meta"].setdefault("response", []).append({"scorer": "llm_judge", "rubric": RUBRIC})
    path.write_text(json.dumps(data, indent=1))
    return path


def run(set_path: Path, tmp_path: Path, name: str = "run.json"):
    cases = read_evalset(set_path).cases
    model = OracleLlm.from_cases(cases)
    options = RunOptions(set_path=set_path, cases=[JUDGED, PLAIN], output=tmp_path / name)
    chooser = fixed_model(model, "oracle", "test model")
    code, record, path = execute(options, chooser=chooser, summary=run_summary)
    assert load_record(path) == record
    return code, record


def scores(record, case_id: str = JUDGED):
    (trial,) = [t for t in record.trials if t.case_id == case_id]
    return trial, trial.scores["llm_judge"]


def use_judge(ops_env, tmp_path: Path, base: str) -> None:
    ops_env.setenv("OPS_JUDGE_MODEL", "fake-judge")
    ops_env.setenv("OPS_JUDGE_BASE_URL", base)
    ops_env.setenv("OPS_EVAL_CACHE", str(tmp_path / "cache"))


def test_without_a_judge_the_check_is_skipped_and_said(judged_set, tmp_path, ops_env, capsys):
    ops_env.delenv("OPS_JUDGE_MODEL")
    code, record = run(judged_set, tmp_path)
    trial, score = scores(record)
    assert score.outcome == "skipped" and "OPS_JUDGE_MODEL is unset" in score.detail
    assert trial.status == "passed" and code == 0  # skipped is left out, never a pass or a fail
    assert scores(record, PLAIN)[1].outcome == "n/a"
    assert record.judge is None
    assert "judge: none; llm_judge checks are skipped" in capsys.readouterr().out


def test_a_passing_judge_passes_and_a_rerun_is_answered_from_the_cache(
    judged_set, tmp_path, ops_env, capsys
):
    with fake_openai(lambda request: text(json.dumps(PASS))) as (base, received):
        use_judge(ops_env, tmp_path, base)
        code, record = run(judged_set, tmp_path)
        again_code, again = run(judged_set, tmp_path, "again.json")
    assert code == again_code == 0
    score = scores(record)[1]
    assert score.outcome == "pass" and "all there" in score.detail
    assert "(cached verdict)" not in score.detail
    assert "(cached verdict)" in scores(again)[1].detail
    assert len(received) == 1  # the plain case asks nothing; the rerun asks nothing
    (request,) = received
    fenced = request["messages"][1]["content"]
    assert RUBRIC in fenced and "INC-002" in fenced  # the rubric and the agent's answer
    assert (record.judge.calls, record.judge.cache_hits) == (1, 0)
    assert (again.judge.calls, again.judge.cache_hits, again.judge.tokens) == (0, 1, 0)
    assert record.judge.pin == f"fake-judge@{base}#none" and record.judge.tokens == 2
    assert f"judge: fake-judge@{base}#none: 1 call(s), 0 cache hit(s)" in capsys.readouterr().out


def test_a_judge_that_fails_the_answer_fails_the_trial_and_the_run(judged_set, tmp_path, ops_env):
    with fake_openai(lambda request: text(json.dumps(FAIL))) as (base, _):
        use_judge(ops_env, tmp_path, base)
        code, record = run(judged_set, tmp_path)
    trial, score = scores(record)
    assert score.outcome == "fail" and "no severity" in score.detail
    assert trial.status == "failed" and code == 1


@pytest.mark.parametrize(
    "reply",
    ["The answer is fine.", json.dumps({"passed": True, "rationale": "no analysis"})],
)
def test_a_reply_that_is_no_verdict_is_an_error_that_fails_closed(
    judged_set, tmp_path, ops_env, reply
):
    with fake_openai(lambda request: text(reply)) as (base, received):
        use_judge(ops_env, tmp_path, base)
        code, record = run(judged_set, tmp_path)
        run(judged_set, tmp_path, "again.json")
    trial, score = scores(record)
    assert score.outcome == "error" and "not a valid JudgeVerdict" in score.detail
    assert trial.status == "failed" and code == 1
    assert record.judge.errors == 1
    assert len(received) == 2  # the error was not cached: the rerun asked again


def test_an_unreachable_judge_is_an_error_not_a_pass(judged_set, tmp_path, ops_env):
    use_judge(ops_env, tmp_path, "http://127.0.0.1:9/v1")
    code, record = run(judged_set, tmp_path)
    trial, score = scores(record)
    assert score.outcome == "error" and "the judge call failed" in score.detail
    assert trial.status == "failed" and code == 1


def test_a_call_over_the_budget_is_never_made_and_the_run_fails(
    judged_set, tmp_path, ops_env, monkeypatch
):
    monkeypatch.setattr(judge_run, "gate_budget", lambda: Budget(limit=50, source="a test"))
    with fake_openai(lambda request: text(json.dumps(PASS))) as (base, received):
        use_judge(ops_env, tmp_path, base)
        code, record = run(judged_set, tmp_path)
    trial, score = scores(record)
    assert received == []
    assert score.outcome == "error" and "budget_blocked" in score.detail
    assert trial.status == "failed" and code == 1
    assert record.judge.budget_blocked == 1
    assert any(note.startswith("budget_blocked: 1 judge call") for note in record.notes)


def test_an_unreadable_budget_refuses_the_spend_before_any_trial(
    judged_set, tmp_path, ops_env, monkeypatch
):
    broken = tmp_path / "gate.yaml"
    broken.write_text("judge_budget_tokens: [\n")
    real = judge_run.gate_budget
    monkeypatch.setattr(judge_run, "gate_budget", lambda: real(broken))
    with fake_openai(lambda request: text(json.dumps(PASS))) as (base, received):
        use_judge(ops_env, tmp_path, base)
        with pytest.raises(OpsEvalError) as refused:
            run(judged_set, tmp_path)
    assert refused.value.code == EXIT_BAD_INPUT and received == []
    assert "the judge budget cannot be read" in str(refused.value)
    assert not (tmp_path / "run.json").exists()


def test_without_a_judge_an_unreadable_budget_changes_nothing(
    judged_set, tmp_path, ops_env, monkeypatch
):
    monkeypatch.setattr(judge_run, "gate_budget", lambda: Budget(None, "x", problem="gone"))
    ops_env.delenv("OPS_JUDGE_MODEL")
    code, record = run(judged_set, tmp_path)
    assert code == 0 and scores(record)[1].outcome == "skipped"
