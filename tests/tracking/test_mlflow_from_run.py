"""`ops-eval mlflow --from-run`: a run record is logged exactly as it holds it -- its own verdicts
as the metrics, ADK's spans `ops-eval run` kept replayed under each row (a trial they lack, or a
record without them, drawn from the record, and said) -- and a record the command cannot log
(a live option beside it, a file that is no record, another instruction, no trials) is refused
before anything is created."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from mlflow_readback import (
    CASES,
    db_of,
    error_lines,
    prompt_of,
    span_names,
    store_untouched,
)

from ops_eval import RunOptions, execute, load_record
from ops_eval.models.stand_ins import Saboteur, fixed_model

FROM_RUN_CASES = [
    "recommend-fix-inc-002",
    "open-incidents",
    "restart-needs-approval",
    "list-skills",
]


@pytest.fixture(scope="module")
def sabotaged_record(tmp_path_factory) -> Path:
    """An `ops-eval run` record with failures and n/a scores: four cases, two repeats, one
    case missing a call every time, one missing it on every other attempt and answering
    wrong facts, one ending at an approval pause (no facts to grade)."""
    from ops_eval.base.settings import reload

    folder = tmp_path_factory.mktemp("record")
    model = Saboteur.from_cases(CASES)
    model.skip_first_call_on = {prompt_of("recommend-fix-inc-002")}
    wrong = prompt_of("open-incidents")
    model.flaky_on = {wrong}
    model.turns = {**model.turns, wrong: (model.turns[wrong][0], "No incidents are open.")}
    with pytest.MonkeyPatch.context() as env:
        env.setenv("OPS_RUNS_DIR", str(folder / "runs"))
        reload()
        try:
            options = RunOptions(cases=FROM_RUN_CASES, repeats=2, output=folder / "run.json")
            code, _, path = execute(
                options,
                chooser=fixed_model(model, "saboteur", "deterministic test model"),
                out=io.StringIO(),
                err=io.StringIO(),
            )
        finally:
            env.undo()
            reload()
    assert code == 1
    return path


def record_mean(record: Any, name: str) -> float | None:
    """What the record says a scorer's MLflow mean must be: pass 1 / fail 0 for a scorer that
    gates every trial, its value for the others; n/a and skipped left out."""
    from ops_eval.scorers import registered

    values = []
    for trial in record.trials:
        score = trial.scores.get(name)
        if score is None or score.outcome in ("n/a", "skipped"):
            continue
        values.append(float(score.passed) if registered()[name].gate == "all" else score.value)
    values = [v for v in values if v is not None]
    return sum(values) / len(values) if values else None


def test_from_run_logs_the_records_own_verdicts(track, sabotaged_record):
    from ops_eval.outputs.tracking.scorers import mlflow_name
    from ops_eval.scorers import registered

    record = load_record(sabotaged_record)
    outcomes = {s.outcome for t in record.trials for s in t.scores.values()}
    # the record exercises four: llm_judge is skipped, the run having no judge
    assert outcomes == {"pass", "fail", "n/a", "skipped"}
    failed = {n for t in record.trials for n, s in t.scores.items() if s.outcome == "fail"}
    assert {"trajectory", "facts"} <= failed  # a mean-gated and an every-trial scorer
    run = track(["--from-run", str(sabotaged_record)])
    assert run.code == 1, run.out + run.err
    assert run.model.status.name == "FAILED"
    metrics = run.run.data.metrics
    compared = 0
    for name in registered():
        expected = record_mean(record, name)
        got = metrics.get(f"{mlflow_name(name)}/mean")
        if expected is None:
            assert got is None, name
        else:
            assert got == pytest.approx(expected), name
            compared += 1
    assert compared >= 5
    assert metrics["tool_trajectory/mean"] < 1.0
    assert run.model.params["ops_run_id"] == record.run_id
    assert run.run.data.params["source"] == "run record"


def test_from_run_replays_the_adk_spans_ops_eval_run_kept(track, sabotaged_record):
    """`ops-eval run` keeps ADK's spans beside the record; `--from-run` replays them under each
    row's trace, with their recorded times, and the model is not called again."""
    from ops_eval.playing.spans import read_spans, spans_path

    record = load_record(sabotaged_record)
    kept = read_spans(spans_path(sabotaged_record), record.run_id)
    run = track(["--from-run", str(sabotaged_record)])
    rows = sorted((t.info.tags["case_id"], int(t.info.tags["repeat"])) for t in run.traces)
    assert rows == sorted((t.case_id, t.repeat) for t in record.trials)
    assert len(rows) == len(FROM_RUN_CASES) * 2
    for trial in record.trials:
        trace = run.trace_of(trial.case_id, trial.repeat)
        names = span_names(trace)
        assert any(n.startswith("invoke_agent ") for n in names)
        assert any(n.startswith("generate_content ") for n in names)
        assert not [n for n in names if n.startswith("turn ")]
        made = {f"execute_tool {c.name}" for t in trial.turns for c in t.calls}
        assert {n for n in names if n.startswith("execute_tool ")} == made
        recorded = kept[(trial.case_id, trial.repeat)]
        root = next(s for s in trace.data.spans if s.parent_id is None)
        children = [s for s in trace.data.spans if s.parent_id is not None]
        assert min(s.start_time_ns for s in children) == root.start_time_ns  # inside the row
        took = sorted(s.end_ns - s.start_ns for s in recorded)
        replayed = sorted(
            s.end_time_ns - s.start_time_ns
            for s in children
            if s.name != "adk_request_confirmation"  # drawn from the record, not kept
        )
        assert replayed == took  # the recorded durations
        assert "ADK's spans" in trace.info.tags["ops.trace_source"]
        assert record.run_id in trace.info.tags["ops.trace_source"]
        assert trace.info.request_metadata.get("mlflow.modelId") == run.model.model_id
    assert "adk_request_confirmation" in span_names(run.trace_of("restart-needs-approval"))
    assert run.record_path is None  # nothing new was recorded


def test_from_run_without_kept_spans_draws_the_record(track, sabotaged_record, tmp_path):
    """A record alone (copied without its spans file) is drawn from its turns and calls, and
    the command says so; a spans file of another run is refused with a warning, not used."""
    import shutil

    from ops_eval.playing.spans import spans_path

    record = load_record(sabotaged_record)
    alone = tmp_path / "alone" / "run.json"
    alone.parent.mkdir()
    shutil.copy(sabotaged_record, alone)
    run = track(["--from-run", str(alone)])
    assert f"no {spans_path(alone).name} beside the record" in run.err
    for trial in record.trials:
        names = span_names(run.trace_of(trial.case_id, trial.repeat))
        assert not [n for n in names if n.startswith(("invoke_agent", "generate_"))]
        assert [n for n in names if n.startswith("turn ")] == [
            f"turn {t.index}" for t in trial.turns
        ]
        made = [f"execute_tool {c.name}" for t in trial.turns for c in t.calls]
        assert [n for n in names if n.startswith("execute_tool ")] == made
    other = spans_path(alone)
    other.write_text('{"run_id": "someone-else", "format": 1}\n')
    run = track(["--from-run", str(alone)])
    assert "warning:" in run.err and "someone-else" in run.err
    assert run.code == 1  # the record's own verdicts, as before
    trace = run.trace_of(record.trials[0].case_id, record.trials[0].repeat)
    assert "drawn from run record" in trace.info.tags["ops.trace_source"]


def test_a_trial_the_spans_file_lacks_is_drawn_and_said(track, sabotaged_record, tmp_path):
    """Each row says where its spans come from: a trial missing from the spans file is drawn
    from the record, the command names it, and the other rows keep ADK's spans."""
    import shutil

    from ops_eval.playing.spans import spans_path

    record = load_record(sabotaged_record)
    copy = tmp_path / "run.json"
    shutil.copy(sabotaged_record, copy)
    lines = spans_path(sabotaged_record).read_text().splitlines()
    dropped = json.loads(lines[1])
    spans_path(copy).write_text("\n".join([lines[0], *lines[2:]]) + "\n")
    run = track(["--from-run", str(copy)])
    assert f"{dropped['case_id']} #{dropped['repeat']}" in run.err
    for trial in record.trials:
        source = run.trace_of(trial.case_id, trial.repeat).info.tags["ops.trace_source"]
        mine = (trial.case_id, trial.repeat) == (dropped["case_id"], dropped["repeat"])
        assert source.startswith("drawn from run record" if mine else "ADK's spans"), source


def test_from_run_with_a_live_option_is_refused_before_anything(mlflow_cli, store):
    code, out, err = mlflow_cli(["--from-run", "whatever", "--cases", "open-incidents"])
    assert code == 2
    (line,) = error_lines(err)
    assert "--cases" in line and "--from-run" in line
    assert store_untouched(store)


def test_from_run_of_a_file_that_is_not_a_record_is_refused(mlflow_cli, store, tmp_path):
    bogus = tmp_path / "notes.json"
    bogus.write_text('{"hello": "world"}\n')
    code, out, err = mlflow_cli(["--from-run", str(bogus)])
    assert code == 2
    (line,) = error_lines(err)
    assert str(bogus) in line
    assert store_untouched(store)


def test_from_run_of_another_instruction_is_refused(mlflow_cli, store, sabotaged_record, tmp_path):
    data = json.loads(sabotaged_record.read_text())
    data["instruction_sha256"] = {"ops_copilot": "0" * 64}
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(data))
    code, out, err = mlflow_cli(["--from-run", str(edited)])
    assert code == 2, out + err
    (line,) = error_lines(err)
    assert "ops_copilot" in line and "000000000000" in line
    assert store_untouched(store)


def test_a_record_with_no_trials_is_bad_input_and_logs_nothing(mlflow_cli, store, write_record):
    """Guards the `--from-run` refusal of a record without trials (MLflow was asked to evaluate
    zero rows, after an experiment and a logged model were created)."""

    def empty(data):
        data.update(selected_cases=[], trials=[], cases=[], categories=[], scorers=[])

    record = write_record(empty)
    code, out, err = mlflow_cli(["--from-run", str(record)])
    assert code == 2, out + err
    (line,) = error_lines(err)
    assert "no trials" in line and str(record) in line
    assert not db_of(store).exists()  # the store was never opened: no run, no logged model
