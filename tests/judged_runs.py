"""Runs graded by a judge, for the tests of what the gate makes of a judge's verdicts (the gate's
and the embedded judge's): a runs folder under a policy in which every scorer that can fail
gates, `llm_judge` among them, and a run written there whose `llm_judge` has the outcome given
per trial."""

from __future__ import annotations

from pathlib import Path

from ops_eval.judging import JudgeUse
from ops_eval.results.records import write_record
from ops_eval.results.synthetic import synthetic_record
from ops_eval.scorers.base import Score
from support import refigured

SET = "evals/scenario.evalset.json"  # no required cases


def judge_gating_policy(tmp_path: Path, ops_env, monkeypatch) -> Path:
    """A runs folder (OPS_RUNS_DIR, returned) under a policy in which every registered scorer
    that can fail gates, `llm_judge` among them. Shared with the embedded judge's end-to-end
    test."""
    import ops_eval.validation.gate_config as config
    from ops_eval.scorers import registered

    runs = tmp_path / "runs"
    ops_env.setenv("OPS_RUNS_DIR", str(runs))
    assert registered()["llm_judge"].uses_judge  # what the gate reads to find the judge
    names = [n for n, s in registered().items() if s.gate != "report"]
    policy = tmp_path / "policy" / "gate.yaml"
    policy.parent.mkdir()
    policy.write_text(
        "suite_threshold: 0.8\nregression_threshold: 0.05\n"
        f"gating_scorers: [{', '.join(names)}]\njudge_budget_tokens: 100000\n"
    )
    monkeypatch.setattr(config, "gate_file", lambda evals_dir=None: policy)
    return runs


def write_run(
    runs: Path,
    outcomes: list[str],
    *,
    run_id: str = "cand0001",
    judge: JudgeUse | None = None,
    detail: str = "the judge passed the answer",
) -> Path:
    """A run of len(outcomes) one-trial cases where every scorer passes and `llm_judge` has the
    outcome given per trial."""
    record = synthetic_record(
        [(f"case-{i:02d}", "happy", [True]) for i in range(len(outcomes))],
        run_id=run_id,
        eval_set=SET,
    )
    trials = [
        t.model_copy(
            update={"scores": {**t.scores, "llm_judge": Score(outcome=outcome, detail=detail)}}
        )
        for t, outcome in zip(record.trials, outcomes, strict=True)
    ]
    runs.mkdir(parents=True, exist_ok=True)
    path = runs / f"{run_id}.json"
    write_record(refigured(record.model_copy(update={"trials": trials, "judge": judge})), path)
    return path
