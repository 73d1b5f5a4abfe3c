"""`ops-eval mlflow` against a team's store: a real `mlflow server` (SQLite backend, artifacts
proxied by the server) on a loopback port, one per module. The command logs to it over HTTP, live
and `--from-run`, and everything is read back through MLflow's client over HTTP: metrics, the
prompt, the logged model, the traces with ADK's spans, the run record attached to the run."""

from __future__ import annotations

import contextlib
import io
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path
from types import SimpleNamespace

import pytest

from support import REPO

OPS_SET = REPO / "evals" / "ops.evalset.json"
CASES = ("service-status-inventory", "incident-detail-inc-002")
EXPERIMENT = "ops-copilot-team"
HEALTH_WAIT_S = 90.0
SERVER_ENV = {
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    "MLFLOW_SERVER_ENABLE_JOB_EXECUTION": "false",
    "MLFLOW_DISABLE_TELEMETRY": "true",
}
COURSE_METRICS = (
    "tool_trajectory/mean",
    "complete_conversation/mean",
    "response_facts/mean",
    "tool_policy/mean",
)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _get(url: str, timeout: float = 2.0) -> int | None:
    """The HTTP status of GET url, None when nothing answered."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:  # noqa: S310
            return response.status
    except urllib.error.HTTPError as exc:
        return exc.code
    except (urllib.error.URLError, OSError):
        return None


def _tail(path: Path, lines: int = 30) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM to the server's process group (`mlflow server` runs uvicorn as a child), SIGKILL
    when it has not gone within 15 s."""
    if proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)


@pytest.fixture(scope="module")
def server(tmp_path_factory, mlflow_installed):
    """A real MLflow tracking server for this module: its URI, log file, and start-up time."""
    root = tmp_path_factory.mktemp("mlflow-server")
    log_path = root / "server.log"
    port = _free_port()
    uri = f"http://127.0.0.1:{port}"
    command = [
        str(Path(sys.executable).with_name("mlflow")), "server",
        "--host", "127.0.0.1", "--port", str(port),
        "--backend-store-uri", f"sqlite:///{root / 'server.db'}",
        # artifacts go through the server (mlflow-artifacts:/), as a team's client would send them
        "--serve-artifacts", "--artifacts-destination", str(root / "artifacts"),
        "--workers", "1",
    ]  # fmt: skip
    env = {**os.environ, **SERVER_ENV}
    with log_path.open("wb") as log:
        proc = subprocess.Popen(
            command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            env=env, cwd=root, start_new_session=True,
        )  # fmt: skip
    try:
        started = time.monotonic()
        while _get(f"{uri}/health") != 200:
            if proc.poll() is not None:
                pytest.fail(
                    f"mlflow server exited with code {proc.returncode} before answering "
                    f"/health:\n{_tail(log_path)}"
                )
            if time.monotonic() - started > HEALTH_WAIT_S:
                pytest.fail(
                    f"mlflow server did not answer /health in {HEALTH_WAIT_S:.0f} s:\n"
                    f"{_tail(log_path)}"
                )
            time.sleep(0.25)
        startup_s = time.monotonic() - started
        print(f"\nmlflow server answered /health after {startup_s:.1f} s")
        yield SimpleNamespace(uri=uri, log=log_path, proc=proc, startup_s=startup_s, root=root)
    finally:
        _stop(proc)


@pytest.fixture(scope="module")
def oracle():
    from ops_eval import read_evalset
    from ops_eval.models.stand_ins import OracleLlm

    return OracleLlm.from_cases(read_evalset(OPS_SET).cases)


def _env(mp: pytest.MonkeyPatch, uri: str, runs: Path, experiment: str) -> None:
    from ops_eval.base.settings import reload

    mp.setenv("MLFLOW_TRACKING_URI", uri)
    mp.setenv("MLFLOW_EXPERIMENT_NAME", experiment)
    mp.setenv("OPS_RUNS_DIR", str(runs))
    for name in ("MLFLOW_JUDGE_MODEL", "MLFLOW_JUDGE_BASE_URL", "MLFLOW_JUDGE_API_KEY"):
        mp.delenv(name, raising=False)
    reload()


def _cli(argv: list[str], model=None) -> tuple[int, str, str]:
    """`ops-eval mlflow ARGV` in this process: (exit code, stdout, stderr)."""
    from ops_eval.base.exits import OpsEvalError
    from ops_eval.cli import build_parser
    from ops_eval.commands.mlflow import run_mlflow
    from ops_eval.models.stand_ins import fixed_model

    args = build_parser().parse_args(["mlflow", *argv])
    chooser = None
    if model is not None:
        chooser = fixed_model(model, "oracle", "deterministic test model")
    out, err = io.StringIO(), io.StringIO()
    try:
        code = run_mlflow(args, chooser=chooser, out=out, err=err)
    except OpsEvalError as exc:
        print(f"error: {exc}", file=err)
        code = exc.code
    return code, out.getvalue(), err.getvalue()


def _line_value(stdout: str, prefix: str) -> str:
    """The first word after `prefix` on the first line that starts with it."""
    for line in stdout.splitlines():
        if line.startswith(prefix):
            return line.removeprefix(prefix).split()[0].rstrip(":")
    raise AssertionError(f"no line starting {prefix!r} in:\n{stdout}")


# The live command with the oracle in place of model selection, in a process of its own as the
# CLI runs (one evaluation per process): argv[1] is the eval set, the rest the command's options.
ORACLE_DRIVER = """
import sys
from pathlib import Path

from ops_eval import read_evalset
from ops_eval.cli import build_parser
from ops_eval.base.exits import OpsEvalError
from ops_eval.models.stand_ins import OracleLlm, fixed_model
from ops_eval.commands.mlflow import run_mlflow

oracle = OracleLlm.from_cases(read_evalset(Path(sys.argv[1])).cases)
args = build_parser().parse_args(["mlflow", *sys.argv[2:]])
try:
    code = run_mlflow(args, chooser=fixed_model(oracle, "oracle", "deterministic test model"))
except OpsEvalError as exc:
    print(f"error: {exc}", file=sys.stderr)
    code = exc.code
sys.exit(code)
"""


def _process(command: list[str], uri: str, runs: Path, experiment: str) -> SimpleNamespace:
    """`command` in a fresh process logging to `uri`: exit code, stdout, stderr, seconds."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MLFLOW_", "OPS_AGENT_"))}
    env.update(
        MLFLOW_TRACKING_URI=uri,
        MLFLOW_EXPERIMENT_NAME=experiment,
        OPS_RUNS_DIR=str(runs),
        LITELLM_LOCAL_MODEL_COST_MAP="True",
    )
    started = time.monotonic()
    proc = subprocess.run(
        command, cwd=REPO, env=env, capture_output=True, text=True, timeout=600,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip
    seconds = time.monotonic() - started
    shown = f"exit {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr[-4000:]}"
    assert proc.returncode == 0, shown
    return SimpleNamespace(
        code=proc.returncode,
        out=proc.stdout,
        err=proc.stderr,
        seconds=seconds,
        run_id=_line_value(proc.stdout, "mlflow run "),
        model_id=_line_value(proc.stdout, "logged model "),
    )


@pytest.fixture(scope="module")
def logged(server, tmp_path_factory):
    """The command live on the oracle over CASES, then `ops-eval mlflow --from-run` on the record
    it wrote, each in a process of its own logging to the server; what each printed and the ids
    to read back."""
    runs = tmp_path_factory.mktemp("runs")
    live = _process(
        [sys.executable, "-c", ORACLE_DRIVER, str(OPS_SET), "--cases", ",".join(CASES)],
        server.uri, runs, EXPERIMENT,
    )  # fmt: skip
    record = Path(_line_value(live.out, "run record: "))
    ops_eval = str(Path(sys.executable).with_name("ops-eval"))
    replay = _process([ops_eval, "mlflow", "--from-run", str(record)], server.uri, runs, EXPERIMENT)
    print(f"live: {live.seconds:.1f} s, --from-run: {replay.seconds:.1f} s (with start-up)")
    return SimpleNamespace(live=live, replay=replay, record=record)


@pytest.fixture
def remote(server, monkeypatch):
    """MLflow's client over HTTP on the server (the process-wide tracking and registry URIs are
    set to it too, for `mlflow.genai.load_prompt`). All of it is put back after the test: MLflow
    writes both URIs into the environment too, and a registry URI left behind sent a later
    test's prompts to this server once it had stopped (minutes of retries, in a random order)."""
    import mlflow

    tracking = mlflow.get_tracking_uri()
    monkeypatch.setenv("MLFLOW_TRACKING_URI", server.uri)
    monkeypatch.setenv("MLFLOW_REGISTRY_URI", server.uri)
    mlflow.set_tracking_uri(server.uri)
    mlflow.set_registry_uri(server.uri)
    yield mlflow.MlflowClient(tracking_uri=server.uri, registry_uri=server.uri)
    mlflow.set_registry_uri(None)  # none of its own: the tracking URI's, as before
    mlflow.set_tracking_uri(tracking)


def _both(logged):
    return [("live", logged.live), ("--from-run", logged.replay)]


# -- what the command printed -------------------------------------------------------------------


@pytest.mark.e2e
def test_the_server_answers_health_within_the_wait(server):
    assert server.proc.poll() is None
    assert server.startup_s < HEALTH_WAIT_S


@pytest.mark.e2e
def test_both_runs_print_the_server_uri_and_no_local_ui_hint(server, logged):
    for label, run in _both(logged):
        shown = f"tracking: {server.uri} (experiment {EXPERIMENT})"
        assert run.out.count(shown) == 2, (label, run.out)  # at the start and at the end
        assert "open it:" not in run.out and "mlflow:ui" not in run.out, (label, run.out)
        assert "sqlite" not in run.out, (label, run.out)
        assert f"logged model {run.model_id}: READY" in run.out, (label, run.out)
    assert logged.live.run_id != logged.replay.run_id
    assert logged.live.model_id != logged.replay.model_id
    assert "logged run record" in logged.replay.out


# -- read back over HTTP ------------------------------------------------------------------------


@pytest.mark.e2e
def test_the_run_has_the_course_metrics_at_one(remote, logged):
    for label, run in _both(logged):
        found = remote.get_run(run.run_id)
        metrics = found.data.metrics
        for name in COURSE_METRICS:
            assert metrics.get(name) == 1.0, (label, name, metrics)
        assert found.info.status == "FINISHED", label
        experiment = remote.get_experiment(found.info.experiment_id)
        assert experiment.name == EXPERIMENT
        # the server chose where the artifacts live (proxied), not a local path of the client
        assert experiment.artifact_location.startswith("mlflow-artifacts:"), experiment
    live = remote.get_run(logged.live.run_id).data.params
    assert live["source"] == "live" and live["agent_model"] == "oracle"
    replay = remote.get_run(logged.replay.run_id).data.params
    assert replay["source"] == "run record" and replay["record"] == str(logged.record)
    assert live["ops_run_id"] == replay["ops_run_id"]


@pytest.mark.e2e
def test_the_instruction_is_the_latest_prompt_version(remote, logged):
    import mlflow

    from ops_eval.agents import AGENTS

    prompt = mlflow.genai.load_prompt("prompts:/ops_copilot-instruction@latest")
    assert prompt.template == AGENTS["ops_copilot"].instruction
    # the same text twice is one version: --from-run reused the live run's
    assert prompt.version == 1
    assert f"prompt: prompts:/ops_copilot-instruction/{prompt.version} (ops_copilot)" in (
        logged.live.out
    )
    assert f"prompt: prompts:/ops_copilot-instruction/{prompt.version} (ops_copilot)" in (
        logged.replay.out
    )


@pytest.mark.e2e
def test_the_logged_models_are_ready_with_prompt_and_hashes(remote, logged):
    from mlflow.entities import LoggedModelStatus

    from ops_eval.outputs.tracking.lineage import HASHES

    record_run_id = remote.get_run(logged.live.run_id).data.params["ops_run_id"]
    for label, run in _both(logged):
        model = remote.get_logged_model(run.model_id)
        assert model.status == LoggedModelStatus.READY, (label, model.status)
        params = model.params
        assert params["prompt_uri.ops_copilot"] == "prompts:/ops_copilot-instruction/1", label
        assert params["prompt_version.ops_copilot"] == "1", label
        for name in HASHES:
            assert len(params[name]) == 64 and int(params[name], 16) >= 0, (label, name)
        assert params["ops_run_id"] == record_run_id, label
        assert params["agent_model"] == "oracle", label
        assert model.tags.get("ops_run_id") == record_run_id, label


def _traces(remote, run_id: str) -> list:
    experiment_id = remote.get_run(run_id).info.experiment_id
    return remote.search_traces(locations=[experiment_id], run_id=run_id, include_spans=True)


def _span_names(trace) -> list[str]:
    return [span.name for span in trace.data.spans]


def _expected_tools(case_id: str) -> set[str]:
    from ops_eval import read_evalset

    (case,) = [c for c in read_evalset(OPS_SET).cases if c.eval_id == case_id]
    return {call.name for turn in case.turns for call in turn.calls}


@pytest.mark.e2e
def test_one_trace_per_row_with_adk_spans_linked_to_run_and_model(remote, logged):
    traces = _traces(remote, logged.live.run_id)
    assert sorted(t.info.tags["case_id"] for t in traces) == sorted(CASES)
    for trace in traces:
        meta = trace.info.trace_metadata
        assert meta.get("mlflow.sourceRun") == logged.live.run_id, meta
        assert meta.get("mlflow.modelId") == logged.live.model_id, meta
        names = _span_names(trace)
        assert names[0] == "conversation", names  # the row's own trace, ADK's spans inside it
        assert "invoke_agent ops_copilot" in names and "call_llm" in names, names
        tools = {n.removeprefix("execute_tool ") for n in names if n.startswith("execute_tool ")}
        assert tools == _expected_tools(trace.info.tags["case_id"]), names
        assessed = {a.name: a for a in trace.info.assessments}
        assert assessed["tool_trajectory"].value == 1.0, assessed
        for name in ("complete_conversation", "response_facts", "tool_policy"):
            assert assessed[name].value is True, (name, assessed[name])


@pytest.mark.e2e
def test_from_run_draws_one_trace_per_recorded_trial(remote, logged):
    traces = _traces(remote, logged.replay.run_id)
    assert len(traces) == len(CASES)
    for trace in traces:
        meta = trace.info.trace_metadata
        assert meta.get("mlflow.sourceRun") == logged.replay.run_id, meta
        assert meta.get("mlflow.modelId") == logged.replay.model_id, meta
        names = _span_names(trace)
        assert any(n.startswith("execute_tool ") for n in names), names
        assert "turn 1" in names, names
        assert trace.info.tags.get("ops.trace_source", "").startswith("drawn from run record")


@pytest.mark.e2e
def test_the_run_record_is_attached_to_both_runs(remote, logged, tmp_path):
    import json

    for label, run in _both(logged):
        names = [a.path for a in remote.list_artifacts(run.run_id)]
        assert logged.record.name in names, (label, names)
        local = remote.download_artifacts(run.run_id, logged.record.name, str(tmp_path / label))
        record = json.loads(Path(local).read_text())
        assert [t["case_id"] for t in record["trials"]] == list(CASES), label
        assert json.loads(logged.record.read_text()) == record, label


# -- configuration mistakes cost nothing --------------------------------------------------------


def _requests_after(server, offset: int) -> list[str]:
    """The access-log lines the server wrote after byte `offset`, up to a marker request sent
    now (so everything it handled before it is in the log)."""
    marker = uuid.uuid4().hex
    assert _get(f"{server.uri}/health?marker={marker}") == 200
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        with server.log.open("rb") as log:
            log.seek(offset)
            text = log.read().decode(errors="replace")
        if marker in text:
            lines = text.split(marker)[0].splitlines()[:-1]  # the last: the marker's own
            return [line for line in lines if '"GET ' in line or '"POST ' in line]
        time.sleep(0.1)
    raise AssertionError(f"the marker request never reached the server's log:\n{text[-2000:]}")


@pytest.mark.e2e
def test_the_access_log_sees_every_request(server):
    """The control for the test below: a request to the server shows in its access log."""
    offset = server.log.stat().st_size
    assert _get(f"{server.uri}/version") == 200
    assert any("/version" in line for line in _requests_after(server, offset))


@pytest.mark.parametrize(
    "judge",
    [
        {"MLFLOW_JUDGE_MODEL": "some-judge"},
        {"MLFLOW_JUDGE_MODEL": "some-judge", "MLFLOW_JUDGE_BASE_URL": "http://127.0.0.1:9/v1"},
        {"MLFLOW_JUDGE_API_KEY": "k"},
    ],
    ids=["model-only", "no-key", "key-only"],
)
@pytest.mark.parametrize("from_run", [False, True], ids=["live", "from-run"])
def test_an_incomplete_judge_trio_exits_2_before_contacting_the_server(
    server, oracle, tmp_path, judge, from_run
):
    import mlflow

    experiment = f"never-{uuid.uuid4().hex[:8]}"
    offset = server.log.stat().st_size
    with pytest.MonkeyPatch.context() as mp:
        _env(mp, server.uri, tmp_path / "runs", experiment)
        for name, value in judge.items():
            mp.setenv(name, value)
        from ops_eval.base.settings import reload

        reload()
        argv = ["--from-run", str(tmp_path / "absent.json")] if from_run else ["--cases", CASES[0]]
        code, out, err = _cli(argv, model=None if from_run else oracle)
    assert code == 2, (out, err)
    assert "the judge needs MLFLOW_JUDGE_MODEL, MLFLOW_JUDGE_BASE_URL and MLFLOW_JUDGE_API_KEY" in (
        err
    )
    trio = ("MLFLOW_JUDGE_MODEL", "MLFLOW_JUDGE_BASE_URL", "MLFLOW_JUDGE_API_KEY")
    given = ", ".join(n for n in trio if n in judge)
    unset = ", ".join(n for n in trio if n not in judge)
    assert f"{given} set, {unset} missing" in err, err
    assert out == ""  # not even the tracking line: nothing was started
    assert _requests_after(server, offset) == []
    assert not list((tmp_path / "runs").glob("**/*.json"))
    assert mlflow.MlflowClient(server.uri).get_experiment_by_name(experiment) is None


def test_a_server_that_does_not_answer_health_exits_3(oracle, tmp_path):
    with (
        socket.socket(socket.AF_INET, socket.SOCK_STREAM) as held,
        pytest.MonkeyPatch.context() as mp,
    ):
        held.bind(("127.0.0.1", 0))  # bound and not listening: refused, and no one else's
        uri = f"http://127.0.0.1:{held.getsockname()[1]}"
        _env(mp, uri, tmp_path / "runs", EXPERIMENT)
        code, out, err = _cli(["--cases", CASES[0]], model=oracle)
    assert code == 3, (out, err)
    assert f"tracking server {uri} did not answer /health" in err
    assert "model:" not in out  # no model was chosen, nothing played
    assert not list((tmp_path / "runs").glob("**/*.json"))


@pytest.mark.e2e
def test_one_process_logs_to_a_local_store_then_to_the_server(server, oracle, tmp_path):
    """`run_mlflow` twice in one process, into a SQLite store and then into the server (the
    in-process path of the test fixtures): the second evaluation's ADK spans reach the server,
    not the first store (ADK's tracer is re-pointed per evaluation, `evaluation._adk_spans_here`;
    without it this exited 3, "MLflow returned 0 result rows")."""
    import mlflow

    with pytest.MonkeyPatch.context() as mp:
        _env(mp, f"sqlite:///{tmp_path / 'local.db'}", tmp_path / "runs", EXPERIMENT)
        local = _cli(["--cases", CASES[0]], model=oracle)
        assert local[0] == 0, local
        _env(mp, server.uri, tmp_path / "runs", "ops-copilot-second-store")
        second = _cli(["--cases", CASES[0]], model=oracle)
    assert second[0] == 0, f"exit {second[0]}\nstdout:\n{second[1]}\nstderr:\n{second[2][-3000:]}"
    run_id = _line_value(second[1], "mlflow run ")
    traces = _traces(mlflow.MlflowClient(server.uri), run_id)
    assert len(traces) == 1
    assert any(s.name.startswith("execute_tool ") for s in traces[0].data.spans)
