"""`ops-eval mlflow` end to end with deterministic models, read back from the MLflow store: one
row and one trace of ADK spans per conversation, a Feedback per registry scorer, the instruction
as one prompt version, a logged model that ends READY only on a clean pass and FAILED otherwise
(a crash included), `--from-run` logging exactly what a run record holds, and every refusal
(bad URI, half a judge trio, a record from another instruction) before anything is created.

Every test that reaches MLflow logs to one SQLite store for the module, each in its own
experiment (one store is faster than many). MLflow rebuilds its tracer provider whenever the
tracking URI changes while ADK's tracer kept the first one: a live evaluation into a second store
of the same process lost every trace until the evaluation re-pointed ADK's tracer
(`test_live_evaluations_into_two_stores_keep_their_traces`, last in this file). Refusals, which
must never reach MLflow, get a fresh store each."""

from __future__ import annotations

import io
import json
import re
import socket
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from ops_eval import RunOptions, ToolCall, execute, load_record, read_evalset
from ops_eval.base.exits import OpsEvalError
from ops_eval.models.stand_ins import OracleLlm, Saboteur, ScriptedLlm, fixed_model
from support import REPO

OPS = REPO / "evals" / "ops.evalset.json"
CASES = read_evalset(OPS).cases
COURSE = ("tool_trajectory", "complete_conversation", "response_facts", "tool_policy")
PAUSE = "Waiting for approval: restart_service(name=inventory). No state change."
JUDGE_TRIO = ("MLFLOW_JUDGE_MODEL", "MLFLOW_JUDGE_BASE_URL", "MLFLOW_JUDGE_API_KEY")


def prompt_of(case_id: str, turn: int = 1) -> str:
    return next(c for c in CASES if c.eval_id == case_id).turns[turn - 1].prompt


def oracle() -> OracleLlm:
    return OracleLlm.from_cases(CASES)


# -- reading a command's results back from the store ---------------------------------------------


@dataclass
class Logged:
    """One `ops-eval mlflow` invocation and what it left in its experiment of the store."""

    code: int
    out: str
    err: str
    uri: str
    experiment: str
    run: Any
    traces: list[Any]
    model: Any
    record_path: Path | None

    @property
    def record(self):
        assert self.record_path is not None, self.out
        return load_record(self.record_path)

    def trace_of(self, case_id: str, repeat: int = 1) -> Any:
        found = [
            t
            for t in self.traces
            if t.info.tags.get("case_id") == case_id and t.info.tags.get("repeat") == str(repeat)
        ]
        assert len(found) == 1, [t.info.tags for t in self.traces]
        return found[0]

    def models(self) -> list[Any]:
        """Every logged model of the experiment."""
        import mlflow

        experiment_id = experiment_of(self.uri, self.experiment)
        assert experiment_id is not None
        return mlflow.MlflowClient(self.uri).search_logged_models(experiment_ids=[experiment_id])

    def runs(self) -> list[Any]:
        """Every MLflow run of the experiment."""
        import mlflow

        experiment_id = experiment_of(self.uri, self.experiment)
        assert experiment_id is not None
        return mlflow.MlflowClient(self.uri).search_runs([experiment_id])


def _printed(pattern: str, out: str) -> str | None:
    found = re.search(pattern, out, re.MULTILINE)
    return found.group(1) if found else None


def experiment_of(uri: str, name: str) -> str | None:
    import mlflow

    found = mlflow.MlflowClient(uri).get_experiment_by_name(name)
    return None if found is None else found.experiment_id


def read_back(uri: str, experiment: str, code: int, out: str, err: str) -> Logged:
    """The MLflow run, its traces and the logged model the command printed (None, [] and None
    when it printed none)."""
    import mlflow

    mlflow.set_tracking_uri(uri)  # the same URI every time: see the module's docstring
    client = mlflow.MlflowClient(uri)
    run_id = _printed(r"^mlflow run (\w+): ", out)
    model_id = _printed(r"^logged model (m-\w+): ", out)
    run = client.get_run(run_id) if run_id else None
    traces = (
        mlflow.search_traces(locations=[run.info.experiment_id], run_id=run_id, return_type="list")
        if run
        else []
    )
    record = _printed(r"^run record: (\S+)", out)
    return Logged(
        code=code,
        out=out,
        err=err,
        uri=uri,
        experiment=experiment,
        run=run,
        traces=traces,
        model=client.get_logged_model(model_id) if model_id else None,
        record_path=Path(record) if record else None,
    )


def feedback(trace: Any) -> dict[str, Any]:
    """A trace's scorer verdicts by name (its expectations left out)."""
    from mlflow.entities import Feedback

    verdicts = [a for a in trace.info.assessments if isinstance(a, Feedback)]
    by_name = {a.name: a for a in verdicts}
    assert len(by_name) == len(verdicts), "a scorer logged twice on one row"
    return by_name


def registry_names() -> set[str]:
    from ops_eval.outputs.tracking.scorers import mlflow_name
    from ops_eval.scorers import registered

    return {mlflow_name(name) for name in registered()}


def span_names(trace: Any) -> list[str]:
    return [s.name for s in trace.data.spans]


def outputs(trace: Any) -> dict[str, Any]:
    data = trace.data.response
    return json.loads(data) if isinstance(data, str) else data


def store_untouched(uri: str) -> bool:
    """Nothing was written: the SQLite file of the store was never created."""
    return not Path(uri.removeprefix("sqlite:///")).exists()


@pytest.fixture(scope="module")
def shared_store(tmp_path_factory, mlflow_installed) -> str:
    """The module's one tracking store (see the module's docstring)."""
    return f"sqlite:///{tmp_path_factory.mktemp('store') / 'mlflow.db'}"


@dataclass
class Tracker:
    """`ops-eval mlflow ARGV` into the module's store, in this test's own experiment."""

    cli: Any
    uri: str
    experiment: str

    def __call__(self, argv: list[str], model: Any = None) -> Logged:
        code, out, err = self.cli(argv, model=model)
        return read_back(self.uri, self.experiment, code, out, err)


@pytest.fixture
def track(mlflow_cli, ops_env, shared_store, request) -> Tracker:
    experiment = re.sub(r"[^\w.-]+", "-", request.node.name)
    ops_env.setenv("MLFLOW_TRACKING_URI", shared_store)
    ops_env.setenv("MLFLOW_EXPERIMENT_NAME", experiment)
    return Tracker(mlflow_cli, shared_store, experiment)


def error_lines(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("error: ")]


# -- 1. READY: the oracle on two cases, then a second run on the same instruction -----------------


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
    assert _printed(r"^mlflow run \w+: (\d+) conversation", first.out) == "2"


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


# -- 2. FAILED: one expected call skipped -------------------------------------------------------


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


# -- 3. Errored rows are never a pass -----------------------------------------------------------


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


# -- 4. A crash finalises the logged model FAILED -----------------------------------------------


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


# -- 5. The confirmation boundary through the real runner ---------------------------------------


def restart_model(*, say: str | None = None) -> ScriptedLlm:
    """One model call on the restart prompt: restart_service(name=inventory), and `say` beside
    it when given. A second call would exhaust the script (the trial would error)."""
    call = ToolCall("restart_service", {"name": "inventory"})
    return ScriptedLlm(script=[[say, call] if say else call])


def test_an_unapproved_restart_pauses_with_the_harness_text(track, seed):
    from ops_copilot.store.workspace import Workspace

    model = restart_model()
    run = track(["--cases", "restart-needs-approval"], model)
    assert model.calls == 1
    trace = run.trace_of("restart-needs-approval")
    (turn,) = outputs(trace)["turns"]
    assert turn["response"] == PAUSE
    assert turn["response_written_by_harness"] is True
    assert turn["waiting_for_approval"] == [
        {"name": "restart_service", "args": {"name": "inventory"}}
    ]
    assert turn["approvals_given"] == []
    names = span_names(trace)
    assert "execute_tool restart_service" in names and "adk_request_confirmation" in names
    pause = next(s for s in trace.data.spans if s.name == "adk_request_confirmation")
    assert pause.inputs["originalFunctionCall"] == {
        "name": "restart_service",
        "args": {"name": "inventory"},
    }
    assert pause.outputs["still_waiting"] is True
    (trial,) = run.record.trials
    assert trial.state_after == Workspace.fresh(seed).store.snapshot().model_dump()
    assert trial.state_after["services"]["inventory"] == "down"
    assert trial.turns[0].model_calls == 1
    assert trial.status == "passed"  # exactly what the case expects
    verdicts = feedback(trace)
    assert verdicts["tool_trajectory"].value == 1.0 and verdicts["tool_policy"].value is True
    assert verdicts["complete_conversation"].value is True  # the pause counts as an answer
    # The harness's pause text is never graded: no facts to check, so no course value for
    # response_facts, and a course metric without a value is never READY.
    assert verdicts["response_facts"].value is None
    assert verdicts["response_facts"].rationale.startswith("not applicable")
    assert run.code == 1 and "  response_facts: no row had a value" in run.out.splitlines()


def test_the_agents_own_text_wins_over_the_pause_text(track):
    said = "Restarting inventory needs an approval; I have asked for it."
    model = restart_model(say=said)
    run = track(["--cases", "restart-needs-approval"], model)
    assert model.calls == 1
    (turn,) = outputs(run.trace_of("restart-needs-approval"))["turns"]
    assert turn["response"] == said
    assert turn["response_written_by_harness"] is False
    assert turn["waiting_for_approval"] == [
        {"name": "restart_service", "args": {"name": "inventory"}}
    ]
    assert run.record.trials[0].state_after["services"]["inventory"] == "down"


# -- 6 and 7. --from-run ------------------------------------------------------------------------

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


# -- 8. Where it logs ---------------------------------------------------------------------------


def test_a_tracking_server_uri_is_shown_without_the_local_ui(ops_env):
    from ops_eval.outputs.tracking.config import tracking_target

    ops_env.setenv("MLFLOW_TRACKING_URI", "http://127.0.0.1:5999")
    ops_env.delenv("MLFLOW_EXPERIMENT_NAME")
    target = tracking_target()
    assert target.lines() == ["tracking: http://127.0.0.1:5999 (experiment ops-copilot)"]
    assert target.sqlite_file is None and target.artifacts is None


@pytest.mark.parametrize("uri", ["/tmp/x.db", "file:///tmp", "sqlite://", "sqlite:///"])
def test_a_uri_mlflow_cannot_use_is_bad_input(ops_env, uri):
    from ops_eval.outputs.tracking.config import tracking_target

    ops_env.setenv("MLFLOW_TRACKING_URI", uri)
    with pytest.raises(OpsEvalError) as caught:
        tracking_target()
    assert caught.value.code == 2 and uri in str(caught.value)


def test_the_default_store_is_the_checkouts_sqlite_file(ops_env):
    from ops_eval.outputs.tracking.config import tracking_target

    ops_env.delenv("MLFLOW_TRACKING_URI")
    ops_env.delenv("MLFLOW_EXPERIMENT_NAME")
    target = tracking_target()
    assert target.uri == f"sqlite:///{REPO / 'mlflow.db'}"
    assert target.experiment == "ops-copilot"
    assert target.sqlite_file == REPO / "mlflow.db"
    assert target.artifacts == REPO / "mlruns"
    assert target.lines()[1].startswith("open it: mise run mlflow:ui")
    ops_env.setenv("MLFLOW_EXPERIMENT_NAME", "team-evals")
    assert tracking_target().experiment == "team-evals"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_an_unreachable_tracking_server_is_infrastructure_at_once(mlflow_cli, ops_env):
    uri = f"http://127.0.0.1:{free_port()}"
    ops_env.setenv("MLFLOW_TRACKING_URI", uri)
    model = ScriptedLlm(script=[])
    started = time.perf_counter()
    code, out, err = mlflow_cli(["--cases", "open-incidents"], model=model)
    assert time.perf_counter() - started < 15
    assert code == 3, out + err
    (line,) = error_lines(err)
    assert uri in line
    assert f"tracking: {uri} (experiment ops-copilot)" in out.splitlines()
    assert "open it:" not in out
    assert model.calls == 0


# -- 9. The judge -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "given",
    [
        ("MLFLOW_JUDGE_MODEL",),
        ("MLFLOW_JUDGE_API_KEY",),
        ("MLFLOW_JUDGE_MODEL", "MLFLOW_JUDGE_BASE_URL"),
        ("MLFLOW_JUDGE_BASE_URL", "MLFLOW_JUDGE_API_KEY"),
    ],
)
def test_part_of_the_judge_trio_is_refused_naming_the_missing(mlflow_cli, store, ops_env, given):
    for name in given:
        ops_env.setenv(name, "http://127.0.0.1:9/v1" if name.endswith("URL") else "x")
    model = ScriptedLlm(script=[])
    code, out, err = mlflow_cli(["--cases", "open-incidents"], model=model)
    assert code == 2
    (line,) = error_lines(err)
    said = re.search(r"together: (.+) set, (.+) missing", line)
    assert said, line
    assert set(said.group(1).split(", ")) == set(given)
    assert set(said.group(2).split(", ")) == set(JUDGE_TRIO) - set(given)
    assert model.calls == 0 and store_untouched(store)


def test_openai_variables_alone_never_make_a_judge(ops_env):
    from ops_eval.outputs.tracking.config import judge_config

    for name in JUDGE_TRIO:
        ops_env.delenv(name)
    ops_env.setenv("OPENAI_API_KEY", "sk-test")
    ops_env.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    assert judge_config() is None


def test_the_judge_is_evidence_and_its_errors_stay_errors(track, ops_env, monkeypatch):
    import ops_eval.outputs.tracking.scorers as tracking_scorers
    from ops_eval.models.judge import Verdict, parse_verdict

    ops_env.setenv("MLFLOW_JUDGE_MODEL", "judge-7b")
    ops_env.setenv("MLFLOW_JUDGE_BASE_URL", "http://127.0.0.1:9/v1")
    ops_env.setenv("MLFLOW_JUDGE_API_KEY", "sk-judge")
    asked = []

    def fake_judge(config, turns):
        asked.append((config, turns))
        if turns[0]["question"] == prompt_of("open-incidents"):
            return parse_verdict("not json")  # raises JudgeError
        return Verdict(passed=True, rationale="states what the reference states")

    monkeypatch.setattr(tracking_scorers, "ask_judge", fake_judge)
    run = track(["--cases", "open-incidents,list-skills"], oracle())
    assert run.code == 0, run.out + run.err
    assert run.model.status.name == "READY"
    assert "judge: openai/judge-7b at http://127.0.0.1:9/v1 (evidence, not a gate)" in run.out
    assert "  judge: mean 1.000 (1 valued, 1 error(s))  (evidence, not a gate)" in run.out
    assert len(asked) == 2
    config, turns = next(a for a in asked if a[1][0]["question"] == prompt_of("list-skills"))
    assert (config.model, config.base_url, config.api_key) == (
        "openai/judge-7b",
        "http://127.0.0.1:9/v1",
        "sk-judge",
    )
    list_skills = next(c for c in CASES if c.eval_id == "list-skills").turns[0]
    assert turns == [
        {
            "question": list_skills.prompt,
            "answer": list_skills.reference,
            "reference": list_skills.reference,
        }
    ]
    refused = feedback(run.trace_of("open-incidents"))["judge"]
    assert refused.value is None and "not a valid JudgeVerdict" in refused.error.error_message
    passed = feedback(run.trace_of("list-skills"))["judge"]
    assert passed.value is True and passed.error is None
    assert passed.source.source_id == "openai/judge-7b"
    assert run.run.data.metrics["judge/mean"] == 1.0


def test_a_live_evaluation_grades_llm_judge_checks_with_the_configured_judge(
    track, ops_env, tmp_path
):
    """`ops-eval mlflow` opens the run's judge as `ops-eval run` does: the case's llm_judge
    check is graded (not skipped), MLflow gets the verdict, and the record says what the judge
    did."""
    from fake_openai import fake_openai, text

    verdict = {"analysis": "cause, fix, approval", "passed": True, "rationale": "all three"}
    with fake_openai(lambda request: text(json.dumps(verdict))) as (base, received):
        ops_env.setenv("OPS_JUDGE_MODEL", "fake-judge")
        ops_env.setenv("OPS_JUDGE_BASE_URL", base)
        ops_env.setenv("OPS_EVAL_CACHE", str(tmp_path / "cache"))
        run = track(["--cases", "recommend-fix-inc-002"], oracle())
    assert run.code == 0, run.out + run.err
    assert len(received) == 1
    assert f"judge: fake-judge@{base}#none" in run.out
    score = run.record.trials[0].scores["llm_judge"]
    assert score.outcome == "pass" and "all three" in score.detail
    assert run.record.judge is not None and run.record.judge.calls == 1
    logged = feedback(run.trace_of("recommend-fix-inc-002"))["llm_judge"]
    assert logged.value is True


# -- last: two stores in one process -------------------------------------------------------------


def test_live_evaluations_into_two_stores_keep_their_traces(mlflow_cli, ops_env, tmp_path):
    """A live evaluation into a store other than the first this process used still gets one
    trace per row. (Last in the file: once it fails, every later live evaluation of the
    process loses its traces.)"""
    for name in ("a", "b"):
        uri = f"sqlite:///{tmp_path / name}.db"
        ops_env.setenv("MLFLOW_TRACKING_URI", uri)
        code, out, err = mlflow_cli(["--cases", "open-incidents"], model=oracle())
        assert code == 0, f"store {name}: exit {code}: " + "".join(error_lines(err))
        run = read_back(uri, "ops-copilot", code, out, err)
        assert len(run.traces) == 1 and feedback(run.traces[0]), f"store {name}"


def test_a_scenario_row_shows_its_conversation_and_who_ended_it(track):
    from scenario_models import RISK_LINES, SCENARIOS, duet

    case = "scn-restart-after-risk"
    run = track(["--set", str(SCENARIOS), "--cases", case, "--user", "model"], duet(RISK_LINES))
    # READY: a scenario has no script for the course's trajectory metrics; its goal gates
    assert run.code == 0 and ": READY" in run.out, run.out
    conversation = outputs(run.trace_of(case))["conversation"]
    assert conversation["user"] == "model" and conversation["ended_by"] == "user"
    assert conversation["user_turns"][1:] == RISK_LINES[:2]
    assert conversation["agent_turns"][-1] == (
        "Inventory was restarted with your approval and is now operational."
    )
