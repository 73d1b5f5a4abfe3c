"""ADK's spans kept beside a run record (`playing.spans`): one entry per trial holding exactly
that trial's spans, even with trials played at once, and a spans file that does not read is
refused with its line."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from ops_eval import RunOptions, execute, load_record, read_evalset
from ops_eval.models.stand_ins import OracleLlm, fixed_model
from ops_eval.playing.spans import SpansError, read_spans, spans_path
from support import REPO

OPS = REPO / "evals" / "ops.evalset.json"
CASES = ["restart-needs-approval", "incident-detail-inc-002", "list-skills", "open-incidents"]


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("spans")
    oracle = OracleLlm.from_cases(read_evalset(OPS).cases)
    options = RunOptions(cases=CASES, repeats=2, concurrency=4, output=folder / "run.json")
    code, _, path = execute(
        options, chooser=fixed_model(oracle, "oracle", "test"), out=io.StringIO(), err=io.StringIO()
    )
    assert code == 0
    return path


def test_each_trial_holds_its_own_spans_when_played_at_once(run):
    record = load_record(run)
    kept = read_spans(spans_path(run), record.run_id)
    assert set(kept) == {(t.case_id, t.repeat) for t in record.trials}
    for trial in record.trials:
        spans = kept[(trial.case_id, trial.repeat)]
        tools = {s.name for s in spans if s.name.startswith("execute_tool ")}
        assert tools == {f"execute_tool {c.name}" for t in trial.turns for c in t.calls}
        ids = {s.span_id for s in spans}
        roots = [s for s in spans if s.parent_id not in ids]
        assert roots and all(
            s.name in ("invocation",) or s.name.startswith("invoke_workflow") for s in roots
        )
        assert all(s.start_ns <= s.end_ns for s in spans)


def test_kept_spans_carry_the_tools_arguments_and_results(run):
    """ADK writes a tool's arguments and result, and a model call's request and response, into
    its spans only under its legacy telemetry schema, which the recording switches on."""
    record = load_record(run)
    kept = read_spans(spans_path(run), record.run_id)
    trial = next(t for t in record.trials if t.case_id == "incident-detail-inc-002")
    tool = next(s for s in kept[(trial.case_id, 1)] if s.name.startswith("execute_tool "))
    assert "INC-002" in tool.attributes["gcp.vertex.agent.tool_call_args"]
    assert tool.attributes["gcp.vertex.agent.tool_response"]
    model = next(s for s in kept[(trial.case_id, 1)] if s.name == "call_llm")
    assert model.attributes["gcp.vertex.agent.llm_request"]


def test_trials_run_inside_a_callers_span_are_still_told_apart(tmp_path):
    """Each trial's span is a root of its own: inside a caller's span, all trials shared the
    caller's trace id and the file held one trial with everyone's spans."""
    from opentelemetry import trace

    oracle = OracleLlm.from_cases(read_evalset(OPS).cases)
    options = RunOptions(cases=CASES[:2], repeats=2, output=tmp_path / "run.json")
    with trace.get_tracer("a-caller").start_as_current_span("outer job"):
        _, record, path = execute(
            options,
            chooser=fixed_model(oracle, "oracle", "t"),
            out=io.StringIO(),
            err=io.StringIO(),
        )
    kept = read_spans(spans_path(path), record.run_id)
    assert set(kept) == {(t.case_id, t.repeat) for t in record.trials}
    assert all(not any(s.name == "outer job" for s in spans) for spans in kept.values())


def test_a_spans_file_that_cannot_be_written_is_refused_before_the_run(tmp_path):
    from ops_eval.base.exits import OpsEvalError

    (tmp_path / "run.spans.jsonl").mkdir()
    oracle = OracleLlm.from_cases(read_evalset(OPS).cases)
    options = RunOptions(cases=CASES[:1], output=tmp_path / "run.json")
    with pytest.raises(OpsEvalError) as refused:
        execute(
            options,
            chooser=fixed_model(oracle, "oracle", "t"),
            out=io.StringIO(),
            err=io.StringIO(),
        )
    assert refused.value.code == 2 and "spans file" in str(refused.value)
    assert not (tmp_path / "run.json").exists()


def test_mlflows_own_attributes_are_not_kept():
    """In a process where MLflow's provider is the global one, ADK's spans carry MLflow's
    own attributes (its request id, span type): replayed, they would mislabel the span."""
    from types import SimpleNamespace

    from ops_eval.playing.spans import Recording

    status = SimpleNamespace(status_code=SimpleNamespace(name="OK"))
    span = SimpleNamespace(
        name="execute_tool x",
        context=SimpleNamespace(span_id=1, trace_id=2),
        parent=None,
        start_time=1,
        end_time=2,
        status=status,
        attributes={"mlflow.spanType": "null", "gen_ai.tool.name": "x"},
    )
    kept = Recording()
    kept.keep(span)
    assert kept._spans[2][0]["attributes"] == {"gen_ai.tool.name": "x"}


def test_a_spans_file_that_does_not_read_is_refused_with_its_line(run, tmp_path):
    record = load_record(run)
    broken = tmp_path / "broken.spans.jsonl"
    lines = spans_path(run).read_text().splitlines()
    broken.write_text("\n".join([lines[0], lines[1], '{"case_id": 1}']) + "\n")
    with pytest.raises(SpansError, match="line 3"):
        read_spans(broken, record.run_id)
    with pytest.raises(SpansError, match="not of"):
        read_spans(spans_path(run), "another-run")
    with pytest.raises(SpansError):
        read_spans(tmp_path / "missing.spans.jsonl", record.run_id)
    (tmp_path / "x.spans.jsonl").write_text("not json\n")
    with pytest.raises(SpansError, match="line 1"):
        read_spans(tmp_path / "x.spans.jsonl", record.run_id)
    twice = tmp_path / "twice.spans.jsonl"
    doubled = lines[1].replace(
        "}]}", "}, " + lines[1].split('"spans": [')[1].split("}, {")[0] + "}]}"
    )
    twice.write_text("\n".join([lines[0], doubled]) + "\n")
    with pytest.raises(SpansError, match="twice"):
        read_spans(twice, record.run_id)
