"""The verdict of the logged model `ops-eval mlflow` makes: READY only when every gating scorer
passes, as the run's own gate reads them. From a record (edited copies of one real run record,
`base_record`): a value-gated score that failed without a value counts 0, a value outside 0..1
is an error, a gating scorer beyond the course's four (end_state) fails the model, and the model
says what was run (its scope params). Live: a skipped call fails it, an errored row has errors
and no values (every row erroring is infrastructure, exit 3), and a crash after scoring leaves
it FAILED."""

from __future__ import annotations

import re

from mlflow_readback import (
    CASES,
    COURSE,
    error_lines,
    feedback,
    oracle,
    outputs,
    printed_model,
    prompt_of,
    registry_names,
    trial_of,
)

from ops_eval import load_record
from ops_eval.models.stand_ins import Saboteur

# -- from a record: a value-gated score without a value counts 0; one outside 0..1 errs -----------


def test_a_failed_trajectory_without_a_value_counts_0_not_na(mlflow_cli, store, write_record):
    """Guards `_registry_feedback`: a mean-gated score that failed with no value (a trial that
    looped fails so) was logged as n/a (left out of the mean), so the three other rows made the
    model READY. It counts 0, as the run's own means count it."""

    def edit(data):
        trial = trial_of(data, "open-incidents", 1)
        trial["status"] = "failed"
        trial["scores"]["trajectory"].update(outcome="fail", value=None, detail="broken")

    code, out, err = mlflow_cli(["--from-run", str(write_record(edit))])
    assert code == 1, out + err
    assert printed_model(store, out).status.name == "FAILED"
    assert "  tool_trajectory: mean 0.750 < 1.0" in out.splitlines(), out
    assert re.search(r"^  tool_trajectory: mean 0\.750 \(4 valued\)  \(course\)$", out, re.M), out


def test_a_trajectory_value_outside_0_to_1_is_an_error(mlflow_cli, store, write_record):
    """Guards the 0..1 check of `_registry_feedback`: values 0.0 and 2.0 averaged to a mean of
    1.0 with the two other rows, and the model was READY."""

    def edit(data):
        low = trial_of(data, "open-incidents", 1)
        low["status"] = "failed"
        low["scores"]["trajectory"].update(outcome="fail", value=0.0, per_turn=[0.0])
        trial_of(data, "list-skills", 1)["scores"]["trajectory"].update(value=2.0, per_turn=[2.0])

    code, out, err = mlflow_cli(["--from-run", str(write_record(edit))])
    assert code == 1, out + err
    assert printed_model(store, out).status.name == "FAILED"
    assert ": READY" not in out
    assert "  tool_trajectory: 1 row(s) errored" in out.splitlines(), out


# -- from a record: gating scorers beyond the course's four ---------------------------------------


def test_a_failing_end_state_fails_the_model_whatever_the_course_metrics(
    mlflow_cli, store, write_record
):
    """Guards `_failures` counting every gating registry scorer: the course's four all at 1.0
    made the model READY though `end_state` failed on a trial."""

    def edit(data):
        trial = trial_of(data, "list-skills", 2)
        trial["status"] = "failed"
        trial["scores"]["end_state"].update(outcome="fail", detail="the store changed")

    code, out, err = mlflow_cli(["--from-run", str(write_record(edit))])
    assert code == 1, out + err
    assert printed_model(store, out).status.name == "FAILED"
    lines = out.splitlines()
    for name in ("tool_trajectory", "complete_conversation", "response_facts", "tool_policy"):
        assert any(re.match(rf"  {name}: mean 1\.000 ", line) for line in lines), out
    verdict = next(i for i, line in enumerate(lines) if re.match(r"logged model m-\w+: ", line))
    assert lines[verdict].endswith(": FAILED")
    assert "  end_state: mean 0.750 < 1.0" in lines[verdict + 1 :], out


# -- from a record: the scope of a logged model ---------------------------------------------------


def test_the_logged_model_says_what_was_run(mlflow_cli, store, write_record):
    """Guards the scope params of the logged model: a READY model of two cases did not say it
    was not one of the whole set."""
    path = write_record()
    record = load_record(path)
    code, out, err = mlflow_cli(["--from-run", str(path)])
    assert code == 0, out + err
    model = printed_model(store, out)
    assert model.status.name == "READY"
    params = model.params
    assert params["cases"] == "2"
    assert params["repeats"] == "2"
    assert params["conversations"] == "4"
    assert re.fullmatch(r"[0-9a-f]{64}", params["cases_sha256"]), params
    assert params["git_dirty"] in ("True", "False", "unknown")
    expected = "unknown" if record.git_dirty is None else str(record.git_dirty)
    assert params["git_dirty"] == expected


# -- live: a skipped call, errored rows and a crash are never READY -------------------------------


def test_a_skipped_call_fails_the_logged_model(track):
    model = Saboteur.from_cases(CASES)
    model.skip_first_call_on = {prompt_of("recommend-fix-inc-002")}
    run = track(["--cases", "recommend-fix-inc-002,open-incidents"], model)
    assert run.code == 1, run.out + run.err
    assert run.model.status.name == "FAILED"
    assert re.search(r"^  tool_trajectory: mean 0\.\d+ < 1\.0$", run.out, re.MULTILINE), run.out
    assert f"logged model {run.model.model_id}: FAILED" in run.out
    assert run.run.data.metrics["tool_trajectory/mean"] < 1.0
    record = run.record  # still written, and agrees
    assert not record.gate_passed
    bad = next(t for t in record.trials if t.case_id == "recommend-fix-inc-002")
    assert bad.status == "failed" and bad.scores["trajectory"].outcome == "fail"
    assert feedback(run.trace_of("recommend-fix-inc-002"))["tool_trajectory"].value == 0.0


def test_an_errored_row_has_errors_not_values(track):
    model = Saboteur.from_cases(CASES)
    model.crash_on = {prompt_of("open-incidents")}
    run = track(["--cases", "open-incidents,list-skills"], model)
    assert run.code == 1, run.out + run.err
    assert run.model.status.name == "FAILED"
    errored = feedback(run.trace_of("open-incidents"))
    assert set(errored) == registry_names()
    for name, verdict in errored.items():
        assert verdict.value is None and verdict.error is not None, name
        assert "ConnectionError" in verdict.error.error_message
    fine = feedback(run.trace_of("list-skills"))
    assert all(v.error is None for v in fine.values())
    for name in COURSE:
        assert f"  {name}: 1 row(s) errored" in run.out.splitlines()
        assert re.search(rf"^  {name}: mean .*1 error\(s\)\)  \(course\)$", run.out, re.MULTILINE)
    assert outputs(run.trace_of("open-incidents"))["status"] == "error"


def test_every_row_erroring_is_infrastructure(track):
    model = Saboteur.from_cases(CASES)
    model.crash_on = {prompt_of("open-incidents")}
    run = track(["--cases", "open-incidents"], model)
    assert run.code == 3, run.out + run.err
    assert run.model.status.name == "FAILED"
    assert run.record.trials[0].status == "error"


def test_a_crash_after_scoring_leaves_the_logged_model_failed(track, monkeypatch, tmp_path):
    import ops_eval.running.record

    def broken(*args, **kwargs):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(ops_eval.running.record, "build_record", broken)
    run = track(["--cases", "open-incidents"], oracle())
    assert run.code == 3, run.out + run.err
    lines = error_lines(run.err)
    assert len(lines) == 1 and "RuntimeError: disk on fire" in lines[0], run.err
    assert "Traceback" not in run.err
    assert [m.status.name for m in run.models()] == ["FAILED"]
    assert [r.info.status for r in run.runs()] == ["FAILED"]
    assert "READY" not in run.out
    assert not list((tmp_path / "runs").glob("*.json"))  # no record was written
