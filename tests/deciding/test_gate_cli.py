"""`ops-eval gate`, `gate override` and `baseline pin` through the CLI, on synthetic run records
in a runs folder of their own, under the project's gate policy (evals/gate.yaml)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from gate_runs import ALL_PASS, DROPPED, write_run

from ops_eval.cli import main
from ops_eval.results.records import write_record
from support import refigured


@pytest.fixture
def runs(tmp_path, ops_env):
    ops_env.setenv("OPS_RUNS_DIR", str(tmp_path))
    return tmp_path


def _ledger(runs: Path) -> list[dict]:
    return [json.loads(line) for line in (runs / "gate-ledger.jsonl").read_text().splitlines()]


def test_identical_runs_pass_against_the_latest_comparable_run(runs, capsys):
    write_run(runs, "base0001", ALL_PASS, 1, judged=True)
    write_run(runs, "cand0001", ALL_PASS, 2)
    assert main(["gate"]) == 0  # the newest run, against the one before it
    out = capsys.readouterr().out
    assert "candidate: cand0001" in out and "baseline:  base0001" in out
    assert "latest comparable run" in out
    assert "what changed: nothing" in out
    assert out.rstrip().endswith("gate: PASSED -- comparison over 20 shared cases: no regression")
    _, entry = _ledger(runs)  # the first: the baseline judged when it was written
    assert (entry["candidate"], entry["baseline"], entry["verdict"]) == (
        "cand0001",
        "base0001",
        "pass",
    )


def test_a_regression_exits_1_and_says_why_with_both_rates(runs, capsys):
    write_run(runs, "base0001", ALL_PASS, 1, judged=True)
    write_run(runs, "cand0001", DROPPED, 2)
    assert main(["gate", "cand0001"]) == 1
    out = capsys.readouterr().out
    assert "baseline  200/200 100.0%" in out and "candidate 170/200 85.0%" in out
    assert "difference -15.0%" in out and "REGRESSED" in out
    assert "flips: 10 pass->fail, 0 fail->pass; McNemar exact p = 0.00195" in out
    assert "FAIL: the set regressed" in out


def test_inconclusive_noise_passes_loudly(runs, capsys):
    write_run(runs, "base0001", [[True]] * 13, 1, judged=True)
    write_run(runs, "cand0001", [[False]] * 2 + [[True]] * 11, 2)
    assert main(["gate", "cand0001", "--suite-threshold", "0.8"]) == 0
    out = capsys.readouterr().out
    assert "INCONCLUSIVE: the pass rate dropped by more than the threshold" in out


def test_a_changed_eval_set_is_refused_unless_the_change_is_named(runs, capsys):
    """Records without case hashes (version 5) are compared as a whole, as before."""
    write_run(runs, "base0001", ALL_PASS, 1, judged=True, schema_version=5)
    write_run(
        runs, "cand0001", ALL_PASS, 2, eval_set_sha256="f" * 64, model="other/model",
        schema_version=5,
    )  # fmt: skip
    assert main(["gate", "cand0001", "--baseline", "base0001"]) == 2
    err = capsys.readouterr().err
    assert "incompatible runs: eval_set: eeeeeeeeeeee… -> ffffffffffff…" in err
    assert "--allow-change eval_set" in err
    assert len(_ledger(runs)) == 1  # nothing decided, nothing recorded (the baseline's own)
    assert main(["gate", "cand0001", "--baseline", "base0001", "--allow-change", "eval_set"]) == 0
    out = capsys.readouterr().out
    assert "eval_set: eeeeeeeeeeee… -> ffffffffffff…  [incompatible (allowed)]" in out
    assert "model: synthetic/model -> other/model  [compared]" in out


def test_an_override_is_recorded_once_and_never_changes_the_recorded_verdict(runs, capsys):
    write_run(runs, "base0001", ALL_PASS, 1, judged=True)
    cand = write_run(runs, "cand0001", DROPPED, 2)
    record_bytes = cand.read_bytes()
    assert main(["gate", "cand0001"]) == 1
    first = _ledger(runs)[1]
    reason = "known flake in the embedded model's tokenizer; tracked in OPS-42"
    assert main(["gate", "override", "cand0001", "--reason", reason, "--by", "ana"]) == 0
    said = capsys.readouterr().out
    assert "\noverridden: run cand0001, whose gate FAILED (against baseline" in said
    assert "verdict pass" not in said  # the comparison's word is not the gate's decision
    assert main(["gate", "override", "cand0001", "--reason", reason, "--by", "bo"]) == 2
    assert "already overridden" in capsys.readouterr().err
    assert main(["gate", "cand0001"]) == 0  # effective verdict: overridden
    out = capsys.readouterr().out
    assert "OVERRIDDEN by ana at" in out and reason in out
    assert "gate: PASSED (overridden by ana; it FAILED: the set regressed" in out
    entries = _ledger(runs)
    assert entries[1] == first  # the recorded verdict is as it was
    assert [e["kind"] for e in entries] == ["verdict", "verdict", "override", "verdict"]
    assert entries[3]["verdict"] == "regressed" and entries[3]["passed"] is False
    assert cand.read_bytes() == record_bytes


def test_a_passing_gate_cannot_be_overridden(runs, capsys):
    write_run(runs, "base0001", ALL_PASS, 1, judged=True)
    write_run(runs, "cand0001", ALL_PASS, 2)
    assert main(["gate", "cand0001"]) == 0
    reason = "I would like to override this anyway, please"
    assert main(["gate", "override", "cand0001", "--reason", reason, "--by", "ana"]) == 2


def test_a_pinned_baseline_is_used_by_name(runs, capsys):
    write_run(runs, "good0001", ALL_PASS, 1)
    write_run(runs, "mid00001", DROPPED, 2)
    write_run(runs, "cand0001", DROPPED, 3)
    assert main(["baseline", "pin", "good0001", "--name", "release-1", "--by", "ana"]) == 0
    capsys.readouterr()
    assert main(["gate", "cand0001", "--pinned", "release-1"]) == 1
    out = capsys.readouterr().out
    assert "baseline:  good0001" in out and "pinned release-1" in out
    assert main(["baseline", "list"]) == 0
    assert "release-1: run good0001" in capsys.readouterr().out
    assert main(["gate", "cand0001", "--pinned", "nope"]) == 2


def test_json_output_carries_the_fields_tools_read(runs, capsys):
    write_run(runs, "base0001", ALL_PASS, 1, judged=True)
    write_run(runs, "cand0001", DROPPED, 2)
    assert main(["gate", "cand0001", "--format", "json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["verdict"] == "regressed" and data["exit_code"] == 1
    assert data["baseline"]["run_id"] == "base0001"
    assert data["candidate"]["run_id"] == "cand0001"
    assert data["baseline_rates"] == {
        "errors": 0,
        "k": 200,
        "n": 200,
        "rate": 1.0,
        "low": pytest.approx(0.9812, abs=1e-4),
        "high": 1.0,
        "without_verdict": 0,
    }
    assert set(data["candidate_rates"]) >= {"k", "n", "rate", "low", "high"}
    assert set(data["difference"]) == {"estimate", "low", "high"}
    assert data["difference"]["estimate"] == pytest.approx(-0.15)
    assert data["changed"] == []
    assert len(data["flips"]) == 10 and data["mcnemar_p"] == pytest.approx(2 / 2**10)


def test_github_format_annotates_the_failure(runs, capsys):
    write_run(runs, "base0001", ALL_PASS, 1, judged=True)
    write_run(runs, "cand0001", DROPPED, 2)
    assert main(["gate", "cand0001", "--format", "github"]) == 1
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith("::error title=ops-eval gate cand0001::the set regressed")


def test_no_baseline_applies_the_candidates_own_checks_or_exits_2_when_required(runs, capsys):
    write_run(runs, "cand0001", ALL_PASS, 2)
    assert main(["gate"]) == 0
    assert "baseline:  none" in capsys.readouterr().out
    assert main(["gate", "--require-baseline"]) == 2
    assert "no baseline for run cand0001" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["gate", "--suite-threshold", "0.5"], "may only raise the configured 0.8"),
        (["gate", "--regression-threshold", "0.2"], "may only lower the allowed drop"),
        (["gate", "--allow-change", "weather"], "--allow-change: no kind weather"),
        (["gate", "nosuchrun"], "no run record nosuchrun"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(runs, capsys, argv, message):
    write_run(runs, "cand0001", ALL_PASS, 2)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_a_run_where_every_trial_errored_has_nothing_to_gate_exit_3(runs, capsys):
    write_run(runs, "cand0001", [[None]] * 13, 2)
    assert main(["gate", "cand0001"]) == 3
    assert "every trial errored (13); there is no verdict to gate on" in capsys.readouterr().err


def test_a_run_below_the_suite_threshold_fails_without_a_baseline(runs, capsys):
    write_run(runs, "cand0001", [[True]] * 7 + [[False]] * 6, 2)
    assert main(["gate", "cand0001"]) == 1
    assert "below the suite threshold 80.0%" in capsys.readouterr().out


def test_an_altered_ledger_is_refused_before_any_decision(runs, capsys):
    write_run(runs, "base0001", ALL_PASS, 1, judged=True)
    write_run(runs, "cand0001", DROPPED, 2)
    assert main(["gate", "cand0001"]) == 1
    ledger = runs / "gate-ledger.jsonl"
    ledger.write_text(ledger.read_text().replace('"regressed"', '"pass"'))
    assert main(["gate", "cand0001"]) == 2
    assert "gate-ledger.jsonl: line 2" in capsys.readouterr().err


def test_an_override_does_not_cover_a_stricter_policy_or_a_changed_record(runs, capsys):
    """Found in review: an override bound to the run ids alone passed whatever came later."""
    write_run(runs, "base0001", ALL_PASS, 1, judged=True)
    cand = write_run(runs, "cand0001", DROPPED, 2)
    assert main(["gate", "cand0001"]) == 1
    reason = "accepted for the 1.2 release; the drop is the new refusal policy"
    assert main(["gate", "override", "cand0001", "--reason", reason, "--by", "ana"]) == 0
    assert main(["gate", "cand0001"]) == 0
    assert main(["gate", "cand0001", "--suite-threshold", "0.99"]) == 1  # a failure not accepted
    worse = [[False] * 10] * 10 + [[True] * 10] * 10  # same run id, other content
    write_run(runs, "cand0001", worse, 2)
    assert main(["gate", "cand0001"]) == 1
    assert "OVERRIDDEN" not in capsys.readouterr().out.splitlines()[-1]
    assert cand.exists()


def test_a_run_with_one_errored_trial_and_no_failure_is_gated(runs, capsys):
    """Found in review: the runner's exit 3 (a case without a valid trial) was read as 'every
    trial errored', so such a run could never be gated."""
    write_run(runs, "base0001", ALL_PASS, 1, judged=True)
    write_run(runs, "cand0001", [[True] * 10] * 19 + [[None] * 10], 2)
    assert main(["gate", "cand0001"]) == 0
    out = capsys.readouterr().out
    assert "candidate 190/190 100.0%" in out and "10 errored" in out


def test_a_run_where_no_gating_scorer_applied_is_refused(runs, capsys):
    from ops_eval.results.records import load_record
    from ops_eval.scorers.base import Score

    path = write_run(runs, "cand0001", ALL_PASS, 2)
    record = load_record(path)
    na = {name: Score(outcome="n/a") for name in record.trials[0].scores}
    trials = [t.model_copy(update={"scores": na}) for t in record.trials]
    write_record(refigured(record.model_copy(update={"trials": trials})), path)
    assert main(["gate", "cand0001"]) == 2
    assert "no gating scorer applied to any trial" in capsys.readouterr().err


def test_the_gate_refuses_a_policy_that_cannot_gate(runs, capsys, monkeypatch, tmp_path):
    import ops_eval.validation.gate_config as config

    policy = tmp_path / "gate.yaml"
    policy.write_text(
        "suite_threshold: 0.5\nregression_threshold: 0.05\ngating_scorers: [partial_credit]\n"
    )
    monkeypatch.setattr(config, "gate_file", lambda evals_dir=None: policy)
    write_run(runs, "cand0001", ALL_PASS, 2)
    assert main(["gate", "cand0001"]) == 2
    err = capsys.readouterr().err
    assert "gating_scorers[0]: 'partial_credit' is a report scorer" in err
    assert len(err.strip().splitlines()) == 1


def test_github_format_fences_what_a_record_says_from_workflow_commands(runs, capsys):
    from ops_eval.results.records import load_record

    write_run(runs, "base0001", ALL_PASS, 1, judged=True)
    path = write_run(runs, "cand0001", DROPPED, 2)
    record = load_record(path)
    hostile = "x\n::error title=x::INJECTED\n::stop-commands::tok"
    cases = [c.model_copy(update={"category": hostile}) for c in record.cases]
    trials = [t.model_copy(update={"category": hostile}) for t in record.trials]
    write_record(refigured(record.model_copy(update={"cases": cases, "trials": trials})), path)
    assert main(["gate", "cand0001", "--format", "github"]) == 1
    lines = capsys.readouterr().out.splitlines()
    fence = next(i for i, line in enumerate(lines) if line.startswith("::stop-commands::"))
    token = lines[fence].removeprefix("::stop-commands::")
    assert lines[-1] == f"::{token}::" and len(token) == 32
    annotations = (
        "::error title=ops-eval gate cand0001::",
        "::warning title=ops-eval gate cand0001::",
    )
    assert all(line.startswith(annotations) for line in lines[:fence])
    assert not any("INJECTED" in line for line in lines[:fence])
    inside = lines[fence + 1 : -1]
    assert any("INJECTED" in line for line in inside)  # shown, escaped, inert
    assert not any(line.startswith("::") for line in inside)


def test_a_decision_the_ledger_cannot_keep_is_printed_unrecorded_exit_3(runs, capsys, monkeypatch):
    import errno

    import ops_eval.deciding.ledger.chain as ledger

    def full(fd, data):
        raise OSError(errno.ENOSPC, "No space left on device")

    write_run(runs, "base0001", ALL_PASS, 1, judged=True)
    write_run(runs, "cand0001", ALL_PASS, 2)
    monkeypatch.setattr(ledger.os, "write", full)
    assert main(["gate", "cand0001"]) == 3
    out = capsys.readouterr().out
    assert "gate: PASSED -- comparison over 20 shared cases: no regression" in out
    assert "NOT RECORDED:" in out and "No space left on device" in out
    assert len(_ledger(runs)) == 1  # the baseline's verdict only


def test_the_ledger_keeps_what_decided_each_verdict(runs):
    write_run(runs, "base0001", ALL_PASS, 1, judged=True)
    write_run(runs, "cand0001", ALL_PASS, 2, model="other/model", seed_sha256="1" * 64)
    assert main(["gate", "cand0001", "--baseline", "base0001", "--allow-change", "seed"]) == 0
    assert main(["gate", "cand0001", "--baseline", "base0001", "--allow-change", "seed",
                 "--suite-threshold", "0.9"]) == 0  # fmt: skip
    _, first, second = _ledger(runs)
    assert first["allowed"] == ["seed"] and len(first["policy_sha256"]) == 64
    assert first["policy_sha256"] != second["policy_sha256"]


def test_the_series_latest_pin_is_the_baseline_without_asking(runs, capsys):
    write_run(runs, "good0001", ALL_PASS, 1)
    write_run(runs, "newr0001", DROPPED, 2, judged=True)  # newer, eligible, but not the anchor
    write_run(runs, "cand0001", DROPPED, 3)
    assert main(["baseline", "pin", "good0001", "--name", "release-1"]) == 0
    capsys.readouterr()
    assert main(["gate", "cand0001"]) == 1
    out = capsys.readouterr().out
    assert "baseline:  good0001" in out and "pinned release-1" in out
    assert "the series' latest pin" in out


def test_the_gate_refuses_a_policy_whose_required_cases_name_no_set(runs, capsys, monkeypatch):
    """Found in review: a misspelt set name in required_cases passed the gate silently."""
    import ops_eval.validation.gate_config as config

    policy = runs / "policy" / "gate.yaml"
    policy.parent.mkdir()
    names = [n for n, s in __import__("ops_eval.scorers", fromlist=["x"]).registered().items()
             if s.gate != "report"]  # fmt: skip
    policy.write_text(
        "suite_threshold: 0.5\nregression_threshold: 0.05\n"
        f"gating_scorers: [{', '.join(names)}]\n"
        "required_cases:\n  ops-evalset.json: [restart-needs-approval]\n"
    )
    monkeypatch.setattr(config, "gate_file", lambda evals_dir=None: policy)
    write_run(runs, "cand0001", ALL_PASS, 2)
    assert main(["gate", "cand0001"]) == 2
    assert "required_cases.ops-evalset.json" in capsys.readouterr().err


def test_the_newest_file_not_being_a_run_record_is_refused_not_skipped(runs, capsys):
    """Found in review: a truncated newest record let the gate judge an older run instead."""
    import os

    write_run(runs, "old00001", ALL_PASS, 1)
    broken = runs / "new00001.json"
    broken.write_text('{"schema_version": 2, "run_id": ')
    os.utime(broken, (2_000_000_000, 2_000_000_000))
    assert main(["gate"]) == 2
    err = capsys.readouterr().err
    assert "the newest file" in err and "new00001.json" in err and "name the run" in err


def test_github_format_says_when_there_was_no_comparison_and_why_a_gate_did_not_decide(
    runs, capsys
):
    write_run(runs, "cand0001", ALL_PASS, 2)
    assert main(["gate", "--format", "github"]) == 0
    out = capsys.readouterr().out
    assert "::notice title=ops-eval gate cand0001::no baseline" in out
    assert main(["gate", "nosuchrun", "--format", "github"]) == 2
    assert capsys.readouterr().out.startswith("::error title=ops-eval gate::no run record")


def test_json_says_why_a_decision_was_not_recorded(runs, capsys, monkeypatch):
    import errno

    import ops_eval.deciding.ledger.chain as ledger

    def full(fd, data):
        raise OSError(errno.ENOSPC, "No space left on device")

    write_run(runs, "cand0001", ALL_PASS, 2)
    monkeypatch.setattr(ledger.os, "write", full)
    assert main(["gate", "cand0001", "--format", "json"]) == 3
    captured = capsys.readouterr()
    data = json.loads(captured.out)
    assert data["recorded"] is False and "No space left" in data["unrecorded_because"]
    assert "the decision was not recorded" in captured.err


def test_an_override_of_another_decision_is_mentioned_when_it_does_not_apply(runs, capsys):
    write_run(runs, "base0001", ALL_PASS, 1, judged=True)
    write_run(runs, "cand0001", DROPPED, 2)
    assert main(["gate", "cand0001"]) == 1
    reason = "accepted for the 1.2 release; the drop is the new refusal policy"
    assert main(["gate", "override", "cand0001", "--reason", reason, "--by", "ana"]) == 0
    capsys.readouterr()
    assert main(["gate", "cand0001", "--regression-threshold", "0.01"]) == 1
    assert "1 override(s) of this run accept another decision" in capsys.readouterr().out


def test_output_piped_into_head_ends_quietly(runs):
    import os
    import subprocess
    import sys

    write_run(runs, "base0001", ALL_PASS, 1, judged=True)
    write_run(runs, "cand0001", ALL_PASS, 2)
    cli = Path(sys.executable).with_name("ops-eval")
    env = {**os.environ, "OPS_RUNS_DIR": str(runs)}
    done = subprocess.run(
        f"'{cli}' gate cand0001 | head -1", shell=True, env=env, capture_output=True, text=True
    )
    assert done.stdout.startswith("gate: PASSED -- ")  # the decision leads
    assert "Traceback" not in done.stderr and "BrokenPipe" not in done.stderr
