"""The verdict of the logged model `ops-eval mlflow --from-run` makes: READY only when every
gating scorer passes, as the run's own gate reads them -- a value-gated score that failed
without a value counts 0, a value outside 0..1 is an error, a gating scorer beyond the course's
four (end_state) fails the model -- and the model says what was run (its scope params). The
records logged are edited copies of one real run record (`base_record`)."""

from __future__ import annotations

import re

from mlflow_readback import printed_model, trial_of

from ops_eval import load_record

# -- A value-gated score without a value counts 0; one outside 0..1 is an error ---------------


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


# -- Gating scorers beyond the course's four ---------------------------------------------------


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


# -- The scope of a logged model -------------------------------------------------------------


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
