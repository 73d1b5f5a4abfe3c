"""`ops-eval gate` knows the judge: a gating scorer whose verdicts came from a judge that was
never calibrated, or was calibrated below target, fails the gate, naming the judge, its prompt
version and why; a skipped judge is a declared warning, never a silent pass; a call the judge
budget blocked fails the gate. Hand-built run records, a policy in which `llm_judge` gates, and a
calibration report log of the test's own."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import REPO
from ops_eval.calibration import append_report, load_set
from ops_eval.calibration.metrics import TARGET
from ops_eval.calibration.reports import ItemOutcome
from ops_eval.calibration.run import build_report
from ops_eval.cli import main
from ops_eval.judge import GRADING, JudgeUse
from ops_eval.records import write_record
from ops_eval.scorers.base import Score
from ops_eval.testing.synthetic import synthetic_record

PIN = "openai/judge-model@sha256:0123456789abcdef"
VERSION = GRADING.version
SET = "evals/scenario.evalset.json"  # no required cases


def judge_gating_policy(tmp_path: Path, ops_env, monkeypatch) -> Path:
    """A runs folder (OPS_RUNS_DIR, returned) under a policy in which every registered scorer
    that can fail gates, `llm_judge` among them. Shared with the embedded judge's end-to-end
    test."""
    import ops_eval.gate.config as config
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


@pytest.fixture
def gate(tmp_path, ops_env, monkeypatch):
    """(runs folder, calibration report log) of this test, under `judge_gating_policy`."""
    reports = tmp_path / "calibration" / "reports.jsonl"
    ops_env.setenv("OPS_CALIBRATION_REPORTS", str(reports))
    return judge_gating_policy(tmp_path, ops_env, monkeypatch), reports


def _judge(**extra) -> JudgeUse:
    fields = {"pin": PIN, "prompt_versions": {"grade": VERSION, "pair": "pair-x"}, **extra}
    return JudgeUse(**fields)


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
    write_record(record.model_copy(update={"trials": trials, "judge": judge}), path)
    return path


def calibrate_by_hand(reports: Path, judge_says, pin: str = PIN, version: str = VERSION) -> None:
    """Append the report of a calibration over the shipped set where the judge said
    `judge_says(item)` -- as `ops-eval calibrate` would have, without a judge."""
    cset = load_set(REPO / "evals" / "calibration" / "set.yaml")
    outcomes = [
        ItemOutcome(
            id=i.id, label=i.label, length=i.length, verdict="pass" if judge_says(i) else "fail"
        )
        for i in cset.items
    ]
    use = JudgeUse(pin=pin, prompt_versions={"grade": version})
    report = build_report(outcomes, cset, TARGET, judge=use, prompt_version=version, seconds=1.0)
    append_report(report, reports)


def _ledger(runs: Path) -> list[dict]:
    return [json.loads(line) for line in (runs / "gate-ledger.jsonl").read_text().splitlines()]


def test_a_judge_with_no_calibration_report_fails_the_gate(gate, capsys):
    runs, _ = gate
    write_run(runs, ["pass"] * 10, judge=_judge())
    assert main(["gate", "cand0001"]) == 1
    out = capsys.readouterr().out
    assert (
        f"FAIL: llm_judge: judge {PIN} (prompt {VERSION}) is uncalibrated, so it cannot gate: "
        f"no calibration report for judge {PIN} with prompt {VERSION}"
    ) in out
    assert out.rstrip().endswith("gate: FAILED -- no comparison")
    (entry,) = _ledger(runs)
    assert entry["passed"] is False and "is uncalibrated" in entry["failures"][0]


def test_a_judge_calibrated_below_target_fails_the_gate_with_its_figures(gate, capsys):
    runs, reports = gate
    calibrate_by_hand(reports, lambda item: True)  # a judge that passes everything
    write_run(runs, ["pass"] * 10, judge=_judge())
    assert main(["gate", "cand0001"]) == 1
    out = capsys.readouterr().out
    assert "is uncalibrated, so it cannot gate: below target: its latest calibration " in out
    assert "agreement 28/54 = 0.52, kappa 0.00" in out
    assert "agreement 28/54 = 0.52 is below 0.85; kappa 0.00 is below 0.60" in out


def test_a_calibrated_judge_passes_and_the_gate_says_which(gate, capsys):
    runs, reports = gate
    calibrate_by_hand(reports, lambda item: item.human_pass)
    write_run(runs, ["pass"] * 9 + ["fail"], judge=_judge())
    assert main(["gate", "cand0001"]) == 0
    out = capsys.readouterr().out
    assert f"judge: llm_judge: judge {PIN}, prompt {VERSION}: calibrated: agreement 54/54" in out
    assert "FAIL" not in out and out.rstrip().endswith("gate: PASSED -- no comparison")
    data_run = main(["gate", "cand0001", "--format", "json"])
    data = json.loads(capsys.readouterr().out)
    assert data_run == 0 and data["warnings"] == [] and data["judge"]["failures"] == []
    assert data["judge"]["notes"][0].startswith("llm_judge: judge")


def test_the_latest_calibration_decides_and_another_prompt_version_is_not_calibrated(gate, capsys):
    runs, reports = gate
    calibrate_by_hand(reports, lambda item: item.human_pass)
    calibrate_by_hand(reports, lambda item: item.human_pass, version="grade-000000000000")
    write_run(runs, ["pass"] * 10, judge=_judge())
    assert main(["gate", "cand0001"]) == 0
    calibrate_by_hand(reports, lambda item: not item.human_pass)  # re-measured: inverted
    assert main(["gate", "cand0001"]) == 1
    assert "below target" in capsys.readouterr().out
    write_run(runs, ["pass"] * 10, run_id="cand0002", judge=_judge(prompt_versions={}))
    # (a record whose judge names no grading prompt cannot be checked)
    assert main(["gate", "cand0002"]) == 1
    assert "names no 'grade' prompt version" in capsys.readouterr().out


def test_a_skipped_judge_is_a_declared_warning_never_a_silent_pass(gate, capsys):
    runs, _ = gate
    why = "no judge configured (OPS_JUDGE_MODEL is unset)"
    write_run(runs, ["skipped"] * 10, detail=why)
    assert main(["gate", "cand0001"]) == 0
    out = capsys.readouterr().out
    assert f"WARNING: llm_judge: skipped in 10 of 10 trials, so no judge decided them: {why}" in out
    assert main(["gate", "cand0001", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["warnings"] == [
        f"llm_judge: skipped in 10 of 10 trials, so no judge decided them: {why}"
    ]
    assert main(["gate", "cand0001", "--format", "github"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("::warning title=ops-eval gate cand0001::llm_judge: skipped in 10")


def test_a_missing_credential_is_declared_with_its_reason(gate, capsys):
    runs, reports = gate
    calibrate_by_hand(reports, lambda item: item.human_pass)
    missing = "judge credential missing: OPENAI_API_KEY unset for openai/gpt-x"
    write_run(runs, ["pass"] * 6 + ["skipped"] * 4, judge=_judge(), detail=missing)
    assert main(["gate", "cand0001"]) == 0
    out = capsys.readouterr().out
    assert (
        f"WARNING: llm_judge: skipped in 4 of 10 trials, so no judge decided them: {missing}"
    ) in out
    assert "calibrated: agreement 54/54" in out  # the trials it judged were checked too


def test_a_budget_blocked_judge_call_fails_the_gate(gate, capsys):
    runs, reports = gate
    calibrate_by_hand(reports, lambda item: item.human_pass)
    blocked = _judge(budget_blocked=1, budget_tokens=100000, budget_source="gate.yaml")
    write_run(runs, ["pass"] * 9 + ["error"], judge=blocked, detail="budget_blocked: ...")
    assert main(["gate", "cand0001"]) == 1
    out = capsys.readouterr().out
    assert (
        "FAIL: budget_blocked: 1 judge call(s) were not made because they could exceed the "
        "judge budget (100000 tokens, gate.yaml); their scores are errors"
    ) in out
    assert "below the suite threshold" not in out  # 9 of 10 pass: the budget alone fails it


def test_judge_scores_without_a_named_judge_fail_the_gate(gate, capsys):
    runs, _ = gate
    write_run(runs, ["pass"] * 10, judge=None)
    assert main(["gate", "cand0001"]) == 1
    assert "the run record names no judge" in capsys.readouterr().out


def test_a_broken_calibration_log_is_refused_before_anything_is_recorded(gate, capsys):
    runs, reports = gate
    calibrate_by_hand(reports, lambda item: item.human_pass)
    reports.write_text(reports.read_text().replace('"meets_target":true', '"meets_target":false'))
    write_run(runs, ["pass"] * 10, judge=_judge())
    assert main(["gate", "cand0001"]) == 2
    assert f"{reports}: line 1: does not match its hash" in capsys.readouterr().err
    assert not (runs / "gate-ledger.jsonl").exists()


def test_a_judge_scorer_that_does_not_gate_is_not_checked(gate, capsys, monkeypatch, tmp_path):
    import ops_eval.gate.config as config
    from ops_eval.scorers import registered

    runs, _ = gate
    names = [n for n, s in registered().items() if s.gate != "report" and n != "llm_judge"]
    policy = tmp_path / "policy" / "gate.yaml"
    policy.write_text(
        "suite_threshold: 0.8\nregression_threshold: 0.05\n"
        f"gating_scorers: [{', '.join(names)}]\nnot_gating: [llm_judge]\n"
    )
    monkeypatch.setattr(config, "gate_file", lambda evals_dir=None: policy)
    write_run(runs, ["pass"] * 10, judge=_judge())
    assert main(["gate", "cand0001"]) == 0
    assert "uncalibrated" not in capsys.readouterr().out
