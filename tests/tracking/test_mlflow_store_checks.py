"""One behavioural test per defect the review of `ops-eval mlflow` found, each failing if its fix
were reverted (the comment on each test says what it guards).

Each test that reaches MLflow logs into its own fresh SQLite store (the `store` fixture); only
four `--from-run` evaluations and one interrupted live evaluation (in a subprocess) run in all.
The records they log are edited copies of one real `ops-eval run` record of the oracle: two
cases x two repeats, every gating scorer passing."""

from __future__ import annotations

import base64
import contextlib
import http.server
import io
import json
import os
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ops_eval import RunOptions, execute, load_record, read_evalset
from ops_eval.base.exits import OpsEvalError
from ops_eval.models.stand_ins import OracleLlm, ScriptedLlm, fixed_model
from support import REPO

OPS = REPO / "evals" / "ops.evalset.json"
RECORD_CASES = ["open-incidents", "list-skills"]
SECRET = "s3cret"
MARKER = "SLOW-MODEL-CALLED"


# -- helpers ------------------------------------------------------------------------------------


def error_lines(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("error: ")]


def db_of(uri: str) -> Path:
    return Path(uri.removeprefix("sqlite:///"))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def untouchable() -> ScriptedLlm:
    """A model with an empty script: any call is counted, and errors the conversation."""
    return ScriptedLlm(script=[])


def logged_models(uri: str, experiment: str = "ops-copilot") -> list[Any]:
    import mlflow

    client = mlflow.MlflowClient(uri)
    found = client.get_experiment_by_name(experiment)
    assert found is not None, f"no experiment {experiment!r} in {uri}"
    return client.search_logged_models(experiment_ids=[found.experiment_id])


def printed_model(uri: str, out: str) -> Any:
    """The logged model the command printed (`logged model m-...: STATUS`)."""
    import mlflow

    found = re.search(r"^logged model (m-\w+): ", out, re.MULTILINE)
    assert found, out
    return mlflow.MlflowClient(uri).get_logged_model(found.group(1))


@pytest.fixture(scope="module")
def base_record(tmp_path_factory) -> dict[str, Any]:
    """A real run record of the oracle (two cases x two repeats, all passing), as JSON."""
    from ops_eval.base.settings import reload

    folder = tmp_path_factory.mktemp("base-record")
    model = OracleLlm.from_cases(read_evalset(OPS).cases)
    with pytest.MonkeyPatch.context() as env:
        env.setenv("OPS_RUNS_DIR", str(folder / "runs"))
        reload()
        try:
            options = RunOptions(cases=RECORD_CASES, repeats=2, output=folder / "run.json")
            code, _, path = execute(
                options,
                chooser=fixed_model(model, "oracle", "deterministic test model"),
                out=io.StringIO(),
                err=io.StringIO(),
            )
        finally:
            env.undo()
            reload()
    assert code == 0
    data = json.loads(path.read_text())
    assert len(data["trials"]) == 4
    for trial in data["trials"]:  # what the edits below rely on
        assert trial["scores"]["trajectory"]["outcome"] == "pass"
        assert trial["scores"]["end_state"]["outcome"] == "pass"
    return data


@pytest.fixture
def write_record(base_record, tmp_path):
    """write_record(edit=None, name="run.json") -> a copy of the base record (edited in place by
    `edit` first, its figures then worked out again from its edited trials), checked to load
    as a record."""
    from support import refigured

    def write(edit=None, name: str = "run.json") -> Path:
        data = json.loads(json.dumps(base_record))
        if edit is not None:
            edit(data)
            data = refigured(data)
        path = tmp_path / name
        path.write_text(json.dumps(data))
        load_record(path)  # still a valid record
        return path

    return write


def trial_of(data: dict[str, Any], case: str, repeat: int) -> dict[str, Any]:
    return next(t for t in data["trials"] if t["case_id"] == case and t["repeat"] == repeat)


# -- 1. Ctrl-C during a live evaluation -----------------------------------------------------------

INTERRUPTED_SCRIPT = """
import asyncio
import os
import sys
from pathlib import Path

repo, db, runs, marker = Path(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
sys.path[:0] = [str(repo / "evals"), str(repo / "agents")]
os.environ["MLFLOW_TRACKING_URI"] = "sqlite:///" + db
os.environ["OPS_RUNS_DIR"] = runs
os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"

import ops_eval.models as models
from ops_eval import read_evalset
from ops_eval.cli import main
from ops_eval.models.stand_ins import OracleLlm, fixed_model


class Slow(OracleLlm):
    model: str = "slow"

    async def generate_content_async(self, llm_request, stream=False):
        print(marker, file=sys.stderr, flush=True)
        await asyncio.sleep(2)
        async for response in super().generate_content_async(llm_request, stream):
            yield response


slow = Slow.from_cases(read_evalset(repo / "evals" / "ops.evalset.json").cases)
models.choose_model = fixed_model(slow, "slow", "deterministic slow test model")
sys.exit(main(
    ["mlflow", "--cases",
     "open-incidents,list-skills,incident-detail-inc-002,service-status-inventory"]
))
"""


def test_ctrl_c_during_a_live_evaluation_exits_3_promptly_with_the_model_failed(
    tmp_path, mlflow_installed
):
    """Guards: `ops-eval mlflow` turning KeyboardInterrupt into one `error: interrupted` line and
    exit 3 (no traceback), and `LoopThread.close` cancelling the conversations MLflow's worker
    threads still wait on (without it the process never exits); the logged model ends
    FAILED."""
    script = tmp_path / "interrupted.py"
    script.write_text(INTERRUPTED_SCRIPT)
    db, runs = tmp_path / "mlflow.db", tmp_path / "runs"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MLFLOW_", "OPS_RUNS"))}
    err_path = tmp_path / "stderr.txt"
    with err_path.open("w") as err_file:
        proc = subprocess.Popen(
            [sys.executable, str(script), str(REPO), str(db), str(runs), MARKER],
            stdout=subprocess.PIPE,
            stderr=err_file,
            env=env,
            cwd=tmp_path,
            text=True,
        )
        try:
            deadline = time.monotonic() + 120
            while MARKER not in err_path.read_text():
                assert proc.poll() is None, f"exited {proc.returncode}: {err_path.read_text()}"
                assert time.monotonic() < deadline, "the first conversation never started"
                time.sleep(0.1)
            proc.send_signal(signal.SIGINT)
            try:
                out, _ = proc.communicate(timeout=60)
            except subprocess.TimeoutExpired:
                pytest.fail("the command did not exit within 60 s of Ctrl-C")
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    err = err_path.read_text()
    assert proc.returncode == 3, out + err
    lines = error_lines(err)
    assert len(lines) == 1 and "interrupted" in lines[0], err
    assert "Traceback" not in err
    assert not list(runs.glob("*.json"))  # no run record
    models = logged_models(f"sqlite:///{db}")
    assert models and all(m.status.name == "FAILED" for m in models), [m.status for m in models]


# -- 2. --output on the store --------------------------------------------------------------------


def test_output_on_the_store_file_is_refused_and_the_store_unchanged(mlflow_cli, store):
    """Guards the refusal of `--output` equal to the SQLite store: the record would overwrite
    the database after the evaluation."""
    db = db_of(store)
    with sqlite3.connect(db) as connection:
        connection.execute("create table t(x)")
    connection.close()
    before = db.read_bytes()
    model = untouchable()
    code, out, err = mlflow_cli(["--cases", "open-incidents", "--output", str(db)], model=model)
    assert code == 2, out + err
    (line,) = error_lines(err)
    assert "--output" in line and "store" in line
    assert db.read_bytes() == before
    assert model.calls == 0


def test_output_inside_the_artifacts_folder_is_refused(mlflow_cli, store):
    """Guards the refusal of `--output` inside `<db folder>/mlruns/` (MLflow's artifacts)."""
    artifacts = db_of(store).parent / "mlruns"
    target = artifacts / "x.json"
    model = untouchable()
    code, out, err = mlflow_cli(["--cases", "open-incidents", "--output", str(target)], model=model)
    assert code == 2, out + err
    (line,) = error_lines(err)
    assert "--output" in line and "artifacts" in line
    assert not artifacts.exists()  # refused before anything was created
    assert model.calls == 0


# -- 3. A value-gated score without a value counts 0; one outside 0..1 is an error ---------------


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


# -- 4. Gating scorers beyond the course's four ---------------------------------------------------


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


# -- 5. Credentials in the tracking URI ------------------------------------------------------------


def test_a_password_in_the_tracking_uri_is_masked(ops_env):
    """Guards `TrackingTarget.shown`: the URI was printed with its password."""
    from ops_eval.outputs.tracking.config import tracking_target

    ops_env.setenv("MLFLOW_TRACKING_URI", f"http://user:{SECRET}@127.0.0.1:{free_port()}")
    ops_env.delenv("MLFLOW_EXPERIMENT_NAME")
    lines = tracking_target().lines()
    assert lines and all(SECRET not in line for line in lines)
    assert "user:***@127.0.0.1:" in lines[0]
    ops_env.setenv("MLFLOW_TRACKING_URI", f"https://{SECRET}@127.0.0.1:{free_port()}")
    assert SECRET not in tracking_target().lines()[0]  # a token alone as the user part


def test_an_unreachable_server_with_a_password_never_prints_it(mlflow_cli, ops_env, write_record):
    """Guards `store.reachable`'s message: it named the URI with its password."""
    ops_env.setenv("MLFLOW_TRACKING_URI", f"http://user:{SECRET}@127.0.0.1:{free_port()}")
    code, out, err = mlflow_cli(["--from-run", str(write_record())])
    assert code == 3, out + err
    (line,) = error_lines(err)
    assert "user:***@" in line
    assert SECRET not in out + err


class _BasicAuthHealth(http.server.BaseHTTPRequestHandler):
    expected = ""

    def do_GET(self):  # noqa: N802 (http.server's name)
        ok = self.path == "/health" and self.headers.get("Authorization") == self.expected
        self.send_response(200 if ok else 401)
        self.end_headers()
        self.wfile.write(b"OK" if ok else b"unauthorized")

    def log_message(self, *args):
        pass


@pytest.fixture
def auth_server() -> Iterator[int]:
    """A loopback server whose /health answers 200 only to Basic user:s3cret; its port."""
    token = base64.b64encode(f"user:{SECRET}".encode()).decode()
    handler = type("Handler", (_BasicAuthHealth,), {"expected": f"Basic {token}"})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def test_the_health_probe_sends_the_uris_credentials(ops_env, auth_server):
    """Guards `store.reachable` sending the URI's user and password as Basic authentication (a
    server behind basic auth answered 401, and the command gave up with exit 3)."""
    from ops_eval.outputs.tracking.config import tracking_target
    from ops_eval.outputs.tracking.store import reachable

    ops_env.setenv("MLFLOW_TRACKING_URI", f"http://user:{SECRET}@127.0.0.1:{auth_server}")
    reachable(tracking_target())  # no exception: the server answered 200
    ops_env.setenv("MLFLOW_TRACKING_URI", f"http://user:wrong@127.0.0.1:{auth_server}")
    with pytest.raises(OpsEvalError) as caught:
        reachable(tracking_target())
    assert caught.value.code == 3 and "wrong" not in str(caught.value)


# -- 6. Store problems are exit 2 before anything ------------------------------------------------


def _folder_uri(tmp: Path) -> str:
    (tmp / "folder").mkdir()
    return f"sqlite:///{tmp / 'folder'}/"


def _under_a_file_uri(tmp: Path) -> str:
    (tmp / "plain").write_text("not a folder\n")
    return f"sqlite:///{tmp / 'plain' / 'x.db'}"


def _text_file_uri(tmp: Path) -> str:
    (tmp / "notes.db").write_text("these are notes, not a database\n")
    return f"sqlite:///{tmp / 'notes.db'}"


@pytest.mark.parametrize(
    "make_uri",
    [
        _folder_uri,
        _under_a_file_uri,
        lambda tmp: _under_a_file_uri(tmp).replace("/x.db", "/deeper/x.db"),
        _text_file_uri,
        lambda tmp: "postgresql://u@h/db",
    ],
    ids=["folder", "under-a-file", "a-file-further-up", "text-file", "postgresql"],
)
def test_a_store_the_command_cannot_use_is_bad_input_at_once(
    mlflow_cli, ops_env, write_record, tmp_path, make_uri
):
    """Guards `tracking_target`'s checks of the SQLite path (MLflow retried for minutes on a
    folder or a non-database, or failed later) and its refusal of database URIs whose driver
    the mlflow group does not ship."""
    record = write_record()
    stores = tmp_path / "stores"
    stores.mkdir()
    uri = make_uri(stores)
    before = {p: p.read_bytes() for p in stores.rglob("*") if p.is_file()}
    ops_env.setenv("MLFLOW_TRACKING_URI", uri)
    started = time.perf_counter()
    code, out, err = mlflow_cli(["--from-run", str(record)])
    assert time.perf_counter() - started < 10
    assert code == 2, out + err
    (line,) = error_lines(err)
    assert "MLFLOW_TRACKING_URI" in line
    assert {p: p.read_bytes() for p in stores.rglob("*") if p.is_file()} == before


@pytest.fixture
def deleted_experiment(store, ops_env) -> str:
    """Experiment 'gone', created and deleted in this test's store, and named by
    MLFLOW_EXPERIMENT_NAME; its id."""
    import mlflow

    client = mlflow.MlflowClient(store)
    experiment_id = client.create_experiment("gone")
    client.delete_experiment(experiment_id)
    ops_env.setenv("MLFLOW_EXPERIMENT_NAME", "gone")
    return experiment_id


def _nothing_logged(uri: str, experiment_id: str) -> None:
    import mlflow
    from mlflow.entities import ViewType

    client = mlflow.MlflowClient(uri)
    assert client.search_runs([experiment_id], run_view_type=ViewType.ALL) == []
    assert client.search_logged_models(experiment_ids=[experiment_id]) == []


def test_a_deleted_experiment_is_bad_input_from_a_run(
    mlflow_cli, store, deleted_experiment, write_record
):
    """Guards `open_experiment`'s check of a deleted experiment (MLflow's refusal came out as
    exit 3, an infrastructure failure)."""
    code, out, err = mlflow_cli(["--from-run", str(write_record())])
    assert code == 2, out + err
    (line,) = error_lines(err)
    assert "'gone'" in line and "deleted" in line
    _nothing_logged(store, deleted_experiment)


def test_a_deleted_experiment_is_bad_input_before_the_model_is_started(store, deleted_experiment):
    """Guards `_check_store` before a live evaluation enters model selection (which may start
    an embedded model server), and the deleted-experiment check itself (exit 2, not 3)."""
    from ops_eval.cli import build_parser
    from ops_eval.commands.mlflow import run_mlflow

    entered = []

    @contextlib.contextmanager
    def chooser(*args, **kwargs):
        entered.append(True)
        raise AssertionError("model selection was started")
        yield  # a generator, for contextmanager

    args = build_parser().parse_args(["mlflow", "--cases", "open-incidents"])
    with pytest.raises(OpsEvalError) as caught:
        run_mlflow(args, chooser=chooser, out=io.StringIO(), err=io.StringIO())
    assert caught.value.code == 2
    assert "'gone'" in str(caught.value) and "deleted" in str(caught.value)
    assert not entered
    _nothing_logged(store, deleted_experiment)


# -- 7. A record with no trials --------------------------------------------------------------------


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


# -- 8. The scope of a logged model -------------------------------------------------------------


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
