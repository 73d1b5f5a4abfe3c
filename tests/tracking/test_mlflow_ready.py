"""`ops-eval mlflow` on a clean pass, read back from the MLflow store: the oracle on two cases,
then a second run on the same instruction -- one row and one trace of ADK spans per
conversation, a Feedback per registry scorer, the instruction as one prompt version, a logged
model that ends READY carrying the record's lineage; and a live evaluation into a second store
of the same process keeps its traces."""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Any

import pytest
from mlflow_readback import (
    CASES,
    COURSE,
    JUDGE_TRIO,
    Logged,
    error_lines,
    feedback,
    oracle,
    printed_value,
    read_back,
    registry_names,
    span_names,
)

from ops_eval.base.exits import OpsEvalError
from ops_eval.models.stand_ins import fixed_model


@dataclass
class ReadyRuns:
    uri: str
    first: Logged
    second: Logged
    prompt_after_first: Any
    prompt_after_second: Any


def _invoke(argv: list[str], model: Any) -> tuple[int, str, str]:
    """The command in-process with its own stdout/stderr (for a module-scoped run, where the
    function-scoped `mlflow_cli` and capsys are not available)."""
    from ops_eval.cli import build_parser
    from ops_eval.commands.mlflow import run_mlflow

    out, err = io.StringIO(), io.StringIO()
    args = build_parser().parse_args(["mlflow", *argv])
    chooser = fixed_model(model, model.model, "deterministic test model")
    try:
        code = run_mlflow(args, chooser=chooser, out=out, err=err)
    except OpsEvalError as exc:
        print(f"error: {exc}", file=err)
        code = exc.code
    return code, out.getvalue(), err.getvalue()


def _latest_prompt(uri: str) -> Any:
    import mlflow

    mlflow.set_tracking_uri(uri)
    return mlflow.genai.load_prompt(
        "prompts:/ops_copilot-instruction@latest", link_to_model=False, cache_ttl_seconds=0
    )


@pytest.fixture(scope="module")
def ready(tmp_path_factory, shared_store) -> ReadyRuns:
    """Two live runs with the oracle in the default experiment of the module's store: two
    cases, then one; OPENAI_* set and the judge trio unset (so no judge may run)."""
    from ops_eval.base.settings import reload

    folder = tmp_path_factory.mktemp("ready")
    uri = shared_store
    with pytest.MonkeyPatch.context() as env:
        env.setenv("MLFLOW_TRACKING_URI", uri)
        env.setenv("OPS_RUNS_DIR", str(folder / "runs"))
        env.setenv("OPENAI_API_KEY", "sk-not-a-judge")
        env.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
        for name in ("MLFLOW_EXPERIMENT_NAME", *JUDGE_TRIO):
            env.delenv(name, raising=False)
        reload()
        try:
            first = read_back(
                uri,
                "ops-copilot",
                *_invoke(["--cases", "open-incidents,recommend-fix-inc-002"], oracle()),
            )
            prompt_after_first = _latest_prompt(uri)
            second = read_back(uri, "ops-copilot", *_invoke(["--cases", "list-skills"], oracle()))
            prompt_after_second = _latest_prompt(uri)
        finally:
            env.undo()
            reload()
    return ReadyRuns(uri, first, second, prompt_after_first, prompt_after_second)


def test_ready_run_exits_0_with_one_trace_per_row(ready):
    first = ready.first
    assert first.code == 0, first.out + first.err
    assert "logged model " in first.out and ": READY" in first.out
    assert first.run.info.status == "FINISHED"
    cases = sorted(t.info.tags["case_id"] for t in first.traces)
    assert cases == ["open-incidents", "recommend-fix-inc-002"]
    assert printed_value(r"^mlflow run \w+: (\d+) conversation", first.out) == "2"


@pytest.mark.parametrize("which", ["first", "second"])
def test_each_trace_holds_adk_spans_under_the_conversation_root(ready, which):
    """ADK's agent, model and tool spans land in the row's trace, in later evaluations of the
    same process too."""
    runs = getattr(ready, which)
    for trace in runs.traces:
        spans = {s.span_id: s for s in trace.data.spans}
        roots = [s for s in spans.values() if s.parent_id is None]
        assert [r.name for r in roots] == ["conversation"], span_names(trace)
        for span in spans.values():  # every span descends from the root
            node = span
            while node.parent_id is not None:
                node = spans[node.parent_id]
            assert node is roots[0]
        names = span_names(trace)
        assert any(n.startswith("invoke_agent") for n in names), names
        assert any(n.startswith(("call_llm", "generate_content")) for n in names), names
        case = trace.info.tags["case_id"]
        expected = {
            c.name for t in next(c for c in CASES if c.eval_id == case).turns for c in t.calls
        }
        tools = {n.removeprefix("execute_tool ") for n in names if n.startswith("execute_tool ")}
        assert tools == expected


def test_every_row_has_a_feedback_per_registry_scorer(ready):
    assert set(COURSE) <= registry_names()
    assert not {"trajectory", "complete", "facts"} & registry_names()  # logged by course names
    for trace in ready.first.traces:
        verdicts = feedback(trace)
        assert set(verdicts) == registry_names()
        assert all(v.error is None for v in verdicts.values())
        for name in COURSE:
            value = verdicts[name].value
            assert value is True or value == 1.0, (name, value)


def test_ready_metrics_are_1_and_no_judge_from_openai_variables(ready):
    metrics = ready.first.run.data.metrics
    for name in COURSE:
        assert metrics[f"{name}/mean"] == 1.0
    assert not any(k.startswith("judge") for k in metrics)
    assert not any(feedback(t).get("judge") for t in ready.first.traces)
    said = [line for line in ready.first.out.splitlines() if line.startswith("judge:")]
    # only the llm_judge checks' judge speaks, to say there is none (OPS_JUDGE_MODEL unset)
    assert said == ["judge: none; llm_judge checks are skipped: no judge configured "
                    "(OPS_JUDGE_MODEL is unset)"]  # fmt: skip


def test_logged_model_is_ready_and_carries_the_records_lineage(ready):
    first = ready.first
    record = first.record
    model = first.model
    assert model.status.name == "READY"
    params = model.params
    assert params["prompt_uri.ops_copilot"] == "prompts:/ops_copilot-instruction/1"
    assert params["agent_model"] == record.model.name == "oracle"
    assert params["ops_run_id"] == record.run_id
    for name in ("eval_set_sha256", "seed_sha256", "tool_schema_sha256", "scorers_sha256"):
        assert params[name] == getattr(record, name), name
    assert sorted(record.selected_cases) == ["open-incidents", "recommend-fix-inc-002"]
    assert record.gate_passed and record.exit_code == 0


def test_traces_and_run_link_to_the_logged_model(ready):
    first = ready.first
    for trace in first.traces:
        assert trace.info.request_metadata.get("mlflow.modelId") == first.model.model_id
    import mlflow

    artifacts = mlflow.MlflowClient(ready.uri).list_artifacts(first.run.info.run_id)
    assert first.record_path.name in [a.path for a in artifacts]


def test_the_same_instruction_keeps_prompt_version_1(ready):
    from ops_eval.agents import AGENTS

    first, second = ready.prompt_after_first, ready.prompt_after_second
    assert first.version == 1 and first.template == AGENTS["ops_copilot"].instruction
    assert second.version == 1, "a second run with the same instruction added a version"
    assert ready.second.code == 0
    assert ready.second.model.model_id != ready.first.model.model_id
    params = ready.second.model.params
    assert params["prompt_uri.ops_copilot"] == "prompts:/ops_copilot-instruction/1"
    assert params["prompt_version.ops_copilot"] == "1"
    statuses = sorted(m.status.name for m in ready.first.models())
    assert statuses == ["READY", "READY"]


def test_sqlite_store_lines_name_the_uri_and_the_ui(ready):
    lines = ready.first.out.splitlines()
    tracking = f"tracking: {ready.uri} (experiment ops-copilot)"
    assert lines[0] == tracking and lines.count(tracking) == 2  # at the start and at the end
    assert lines[1].startswith("open it: mise run mlflow:ui")
    assert lines[-1].startswith("open it: mise run mlflow:ui")


def test_live_evaluations_into_two_stores_keep_their_traces(mlflow_cli, ops_env, tmp_path):
    """A live evaluation into a store other than the first this process used still gets one
    trace per row. (Once it fails, every later live evaluation of the process loses its
    traces.)"""
    for name in ("a", "b"):
        uri = f"sqlite:///{tmp_path / name}.db"
        ops_env.setenv("MLFLOW_TRACKING_URI", uri)
        code, out, err = mlflow_cli(["--cases", "open-incidents"], model=oracle())
        assert code == 0, f"store {name}: exit {code}: " + "".join(error_lines(err))
        run = read_back(uri, "ops-copilot", code, out, err)
        assert len(run.traces) == 1 and feedback(run.traces[0]), f"store {name}"
