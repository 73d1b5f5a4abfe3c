"""The embedded model as the judge, through its HTTP server: `OPS_JUDGE_MODEL=embedded` starts
llama.cpp's server, pins the judge to its weights, and constrains the reply by the verdict's JSON
schema (OpenAI's `response_format` with a `json_schema`), so even a 135M model's reply validates
as a verdict -- unconstrained, it never produced one (issue 13). Whether the verdict is right is
what calibration measures, not this test.

Only OPS_SKIP_EMBEDDED_TEST=1 with the `local` group missing skips this, and the skip says so.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ops_eval.judging import Verdict
from ops_eval.judging.budget import Budget
from ops_eval.judging.setup import open_judge

pytestmark = pytest.mark.e2e  # the embedded judge: a real llama.cpp server

ANSWERS = (
    "The inventory service is down; INC-002 (SEV1) is open.",
    "Inventory is healthy and there are no open incidents.",
)


def test_the_embedded_judge_replies_with_valid_verdicts_and_caches_them(
    local_group, ops_env, tmp_path: Path
):
    ops_env.setenv("OPS_JUDGE_MODEL", "embedded")
    ops_env.setenv("OPS_EVAL_CACHE", str(tmp_path / "cache"))
    budget = Budget(limit=100_000, source="test")
    with open_judge(print, tmp_path, budget) as judge:
        assert judge.pin.startswith("embedded/smollm2-135m-instruct@sha256:")
        assert judge.config.schema_mode == "json_schema"
        asked = [
            judge.grade(
                rubric="Says inventory is down and names INC-002.",
                question="What is the status of the inventory service?",
                response=answer,
                reference="inventory is down; INC-002 (SEV1) is open",
            )
            for answer in ANSWERS
        ]
        again = judge.grade(
            rubric="Says inventory is down and names INC-002.",
            question="What is the status of the inventory service?",
            response=ANSWERS[0],
            reference="inventory is down; INC-002 (SEV1) is open",
        )
    for one in asked:
        print(one)
        assert isinstance(one.kept, Verdict) and not one.cached and one.tokens > 0
    assert again.cached and again.kept == asked[0].kept
    use = judge.use()
    assert (use.calls, use.cache_hits, use.errors) == (2, 1, 0)
    assert 0 < use.tokens == budget.spent <= budget.limit
    assert "judge-smollm2-135m-instruct-server.log" in {p.name for p in tmp_path.iterdir()}


def test_a_run_graded_by_the_embedded_judge_is_refused_by_the_gate(
    local_group, ops_env, tmp_path: Path, capsys
):
    """End to end: the real runner (the oracle agent, a deterministic test model answering the
    reference), the embedded judge grading the ops set's `llm_judge` check through its HTTP
    server, the record kept -- and the gate refusing the run because that judge's calibration
    (the committed report, `evals/calibration/reports.jsonl`) missed the target."""
    from ops_eval import RunOptions, execute, read_evalset
    from ops_eval.cli import main
    from ops_eval.models.stand_ins import OracleLlm, fixed_model
    from support import REPO

    ops_env.setenv("OPS_JUDGE_MODEL", "embedded")
    ops_env.setenv("OPS_EVAL_CACHE", str(tmp_path / "cache"))
    ops_env.setenv("OPS_RUNS_DIR", str(tmp_path / "runs"))
    ops_set = REPO / "evals" / "ops.evalset.json"
    oracle = OracleLlm.from_cases(read_evalset(ops_set).cases)
    options = RunOptions(set_path=ops_set, cases=["recommend-fix-inc-002"])
    code, record, _ = execute(options, chooser=fixed_model(oracle, "oracle", "test model"))
    (trial,) = record.trials
    judged = trial.scores["llm_judge"]
    assert judged.outcome in ("pass", "fail"), judged  # a verdict from the server
    assert record.judge is not None and record.judge.calls == 1 and record.judge.tokens > 0
    assert record.judge.pin.startswith("embedded/smollm2-135m-instruct@sha256:")
    capsys.readouterr()
    assert main(["gate", record.run_id]) == 1
    said = capsys.readouterr().out
    assert f"llm_judge: judge {record.judge.pin}" in said and "below target" in said, said
