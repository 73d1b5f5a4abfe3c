"""`ops-eval gate` knows the judge: a gating scorer whose verdicts came from a judge that was
never calibrated on the project's calibration set as it is now, or was calibrated below the
project's target, fails the gate, naming the judge, its prompt version and why; a report on any
other set neither certifies nor revokes; a skipped judge is a declared warning, never a silent
pass; a call the judge budget blocked fails the gate; a run whose judge gave no verdict at all
says so. Hand-built run records, a policy in which `llm_judge` gates, and a calibration report
log of the test's own."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from judged_runs import judge_gating_policy, write_run

from ops_eval.cli import main
from ops_eval.judging import GRADING, JudgeUse
from ops_eval.judging.calibration import CalibrationSet, append_report, load_set
from ops_eval.judging.calibration.reports import ItemOutcome
from ops_eval.judging.calibration.run import build_report
from ops_eval.judging.calibration.target import TARGET, Target
from support import REPO

PIN = "openai/judge-model@sha256:0123456789abcdef"
VERSION = GRADING.version


@pytest.fixture
def gate(tmp_path, ops_env, monkeypatch):
    """(runs folder, calibration report log) of this test, under `judge_gating_policy`."""
    reports = tmp_path / "calibration" / "reports.jsonl"
    ops_env.setenv("OPS_CALIBRATION_REPORTS", str(reports))
    return judge_gating_policy(tmp_path, ops_env, monkeypatch), reports


def _judge(**extra) -> JudgeUse:
    """The record's judge: it made 10 calls (a run whose judge made none is its own case)."""
    fields = {
        "pin": PIN,
        "prompt_versions": {"grade": VERSION, "pair": "pair-x"},
        "calls": 10,
        **extra,
    }
    return JudgeUse(**fields)


SHIPPED = REPO / "evals" / "calibration" / "set.yaml"


def calibrate_by_hand(
    reports: Path,
    judge_says,
    pin: str = PIN,
    version: str = VERSION,
    cset: CalibrationSet | None = None,
    target: Target = TARGET,
) -> None:
    """Append the report of a calibration over `cset` (default: the shipped set) where the judge
    said `judge_says(item)` -- as `ops-eval calibrate` would have, without a judge."""
    cset = cset or load_set(SHIPPED)
    outcomes = [
        ItemOutcome(
            id=i.id, label=i.label, length=i.length, verdict="pass" if judge_says(i) else "fail"
        )
        for i in cset.items
    ]
    use = JudgeUse(pin=pin, prompt_versions={"grade": version})
    report = build_report(outcomes, cset, target, judge=use, prompt_version=version, seconds=1.0)
    append_report(report, reports)


def copied_set(tmp_path: Path) -> CalibrationSet:
    """40 items that are two of the shipped set's answers (one pass, one fail) copied 20 times
    each under new ids -- built in memory, since the loader refuses such a file."""
    shipped = load_set(SHIPPED)
    good = next(i for i in shipped.items if i.labelled_pass)
    bad = next(i for i in shipped.items if not i.labelled_pass)
    items = [
        item.model_copy(update={"id": f"{item.id}-{n}"}) for n in range(20) for item in (good, bad)
    ]
    return CalibrationSet(path=tmp_path / "copied.yaml", sha256="c" * 64, items=items)


def quick_look(tmp_path: Path) -> CalibrationSet:
    """Four of the shipped items: a quick look."""
    shipped = load_set(SHIPPED)
    items = [i for i in shipped.items if i.labelled_pass][:2]
    items += [i for i in shipped.items if not i.labelled_pass][:2]
    return CalibrationSet(path=tmp_path / "quick.yaml", sha256="9" * 64, items=items)


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
    *_, decision, meaning = out.rstrip().splitlines()
    assert decision.startswith("gate: FAILED -- llm_judge: ") and decision.endswith("no comparison")
    assert meaning.startswith("exit 1: the gate FAILED -- measured, not broken")
    (entry,) = _ledger(runs)
    assert entry["passed"] is False and "is uncalibrated" in entry["failures"][0]


def test_a_judge_calibrated_below_target_fails_the_gate_with_its_figures(gate, capsys):
    runs, reports = gate
    calibrate_by_hand(reports, lambda item: True)  # a judge that passes everything
    write_run(runs, ["pass"] * 10, judge=_judge())
    assert main(["gate", "cand0001"]) == 1
    out = capsys.readouterr().out
    assert (
        "is uncalibrated, so it cannot gate: below target: its latest calibration on the "
        "project's set: agreement 28/54 = 0.52, kappa 0.00, 0 error(s), at "
    ) in out
    assert (
        "the project's target (agreement >= 0.85, kappa >= 0.60) is missed: agreement 28/54 = "
        "0.52 is below 0.85; kappa 0.00 is below 0.60"
    ) in out


def test_a_calibrated_judge_passes_and_the_gate_says_which(gate, capsys):
    runs, reports = gate
    calibrate_by_hand(reports, lambda item: item.labelled_pass)
    write_run(runs, ["pass"] * 9 + ["fail"], judge=_judge())
    assert main(["gate", "cand0001"]) == 0
    out = capsys.readouterr().out
    assert (
        f"judge: llm_judge: judge {PIN}, prompt {VERSION}: calibrated: its latest calibration on "
        "the project's set: agreement 54/54"
    ) in out
    assert "FAIL" not in out and out.rstrip().endswith("gate: PASSED -- no comparison")
    data_run = main(["gate", "cand0001", "--format", "json"])
    data = json.loads(capsys.readouterr().out)
    assert data_run == 0 and data["warnings"] == [] and data["judge"]["failures"] == []
    assert data["judge"]["notes"][0].startswith("llm_judge: judge")


def test_the_latest_calibration_decides_and_another_prompt_version_is_not_calibrated(gate, capsys):
    runs, reports = gate
    calibrate_by_hand(reports, lambda item: item.labelled_pass)
    calibrate_by_hand(reports, lambda item: item.labelled_pass, version="grade-000000000000")
    write_run(runs, ["pass"] * 10, judge=_judge())
    assert main(["gate", "cand0001"]) == 0
    calibrate_by_hand(reports, lambda item: not item.labelled_pass)  # re-measured: inverted
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
    calibrate_by_hand(reports, lambda item: item.labelled_pass)
    missing = "judge credential missing: OPENAI_API_KEY unset for openai/gpt-x"
    write_run(runs, ["pass"] * 6 + ["skipped"] * 4, judge=_judge(), detail=missing)
    assert main(["gate", "cand0001"]) == 0
    out = capsys.readouterr().out
    assert (
        f"WARNING: llm_judge: skipped in 4 of 10 trials, so no judge decided them: {missing}"
    ) in out
    assert "calibrated: its latest calibration on the project's set: agreement 54/54" in out


def test_a_budget_blocked_judge_call_fails_the_gate(gate, capsys):
    runs, reports = gate
    calibrate_by_hand(reports, lambda item: item.labelled_pass)
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
    calibrate_by_hand(reports, lambda item: item.labelled_pass)
    reports.write_text(reports.read_text().replace('"meets_target":true', '"meets_target":false'))
    write_run(runs, ["pass"] * 10, judge=_judge())
    assert main(["gate", "cand0001"]) == 2
    assert f"{reports}: line 1: does not match its hash" in capsys.readouterr().err
    assert not (runs / "gate-ledger.jsonl").exists()


def test_a_judge_scorer_that_does_not_gate_is_not_checked(gate, capsys, monkeypatch, tmp_path):
    import ops_eval.validation.gate_config as config
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


# -- only the project's calibration set certifies -------------------------------------------


def test_a_report_on_a_set_of_copies_does_not_certify_a_judge(gate, capsys, tmp_path):
    """40 items -- two answers copied 20 times -- and a judge that agrees with every one: the
    report meets its target, and still certifies nothing, because it is not the project's set."""
    runs, reports = gate
    calibrate_by_hand(reports, lambda item: item.labelled_pass, cset=copied_set(tmp_path))
    write_run(runs, ["pass"] * 10, judge=_judge())
    assert main(["gate", "cand0001"]) == 1
    out = capsys.readouterr().out
    assert (
        f"is uncalibrated, so it cannot gate: not calibrated on the project's calibration set as "
        f"it is now ({SHIPPED}, sha256 "
    ) in out
    assert f"1 report(s) for judge {PIN} with prompt {VERSION} in {reports}, none of" in out
    assert "(the latest: made on " in out and "copied.yaml (sha256 cccccccccccc), not on" in out


def test_a_quick_look_on_another_set_does_not_revoke_a_certification(gate, capsys, tmp_path):
    runs, reports = gate
    calibrate_by_hand(reports, lambda item: item.labelled_pass)  # the project's set: certified
    calibrate_by_hand(reports, lambda item: not item.labelled_pass, cset=quick_look(tmp_path))
    write_run(runs, ["pass"] * 10, judge=_judge())
    assert main(["gate", "cand0001"]) == 0
    out = capsys.readouterr().out
    assert "calibrated: its latest calibration on the project's set: agreement 54/54" in out
    assert "(1 later report(s) do not count; the latest: made on " in out


def test_when_the_shipped_set_changes_earlier_reports_stop_counting(gate, capsys):
    """A report made on an earlier version of the shipped set (another sha256): the judge must
    be calibrated on the set as it is now."""
    runs, reports = gate
    earlier = load_set(SHIPPED).model_copy(update={"sha256": "e" * 64})
    calibrate_by_hand(reports, lambda item: item.labelled_pass, cset=earlier)
    write_run(runs, ["pass"] * 10, judge=_judge())
    assert main(["gate", "cand0001"]) == 1
    out = capsys.readouterr().out
    assert "not calibrated on the project's calibration set as it is now" in out
    assert "(sha256 eeeeeeeeeeee), not on the project's calibration set as it is now" in out
    assert "calibrate it on the current set (`ops-eval calibrate`)" in out


def test_a_report_missing_only_a_raised_target_still_certifies(gate, capsys):
    """The gate judges the project's set by the project's target: a report run with the flags
    raised (agreement 0.99) that missed them, but meets 0.85 / 0.6, certifies."""
    runs, reports = gate
    one_pass = next(i.id for i in load_set(SHIPPED).items if i.labelled_pass)
    strict = Target(agreement=0.99, kappa=0.9)
    calibrate_by_hand(
        reports, lambda item: item.labelled_pass and item.id != one_pass, target=strict
    )
    write_run(runs, ["pass"] * 10, judge=_judge())
    assert main(["gate", "cand0001"]) == 0
    out = capsys.readouterr().out
    assert "calibrated: its latest calibration on the project's set: agreement 53/54" in out
    assert "meets the project's target (agreement >= 0.85, kappa >= 0.60)" in out


# -- a run whose judge gave no verdict ---------------------------------------------------------


def test_a_run_whose_judge_was_never_asked_says_no_judge_verdict_was_used(gate, capsys):
    """Every llm_judge score is a fail the harness decided (the agent gave no answer), so the
    judge made no call: the gate still fails on the uncalibrated judge (fail-closed), but says
    that no verdict of it was used instead of implying it decided."""
    runs, _ = gate
    write_run(runs, ["fail"] * 10, judge=_judge(calls=0), detail="turn 0: response[0]: no answer")
    assert main(["gate", "cand0001"]) == 1
    out = capsys.readouterr().out
    assert (
        f"FAIL: llm_judge: no judge verdict was used: judge {PIN} made no call and had no cache "
        "hit in this run, so none of its 10 score(s) (10 fail) rests on a verdict (an answer the "
        f"agent never gave fails; a call never made is an error); the run was set up to gate on "
        f"judge {PIN} (prompt {VERSION}), which is uncalibrated: no calibration report"
    ) in out
    assert "is uncalibrated, so it cannot gate" not in out


def test_a_calibrated_judge_that_was_never_asked_is_noted_so(gate, capsys):
    runs, reports = gate
    calibrate_by_hand(reports, lambda item: item.labelled_pass)
    write_run(runs, ["pass"] * 9, judge=_judge(calls=0, cache_hits=1))  # one verdict: a hit
    assert main(["gate", "cand0001"]) == 0
    assert "no judge verdict was used" not in capsys.readouterr().out
    write_run(runs, ["fail"] + ["n/a"] * 9, run_id="cand0002", judge=_judge(calls=0))
    main(["gate", "cand0002"])
    out = capsys.readouterr().out
    assert "FAIL: llm_judge" not in out
    assert "judge: llm_judge: no judge verdict was used: judge" in out


def test_a_judge_pass_in_a_record_whose_judge_was_never_asked_fails_the_gate(gate, capsys):
    runs, reports = gate
    calibrate_by_hand(reports, lambda item: item.labelled_pass)
    write_run(runs, ["pass"] * 10, judge=_judge(calls=0))
    assert main(["gate", "cand0001"]) == 1
    out = capsys.readouterr().out
    assert (
        f"FAIL: llm_judge: 10 trial(s) carry a judge's pass, but the run record's judge {PIN} "
        "made no call and had no cache hit: the record contradicts itself"
    ) in out
