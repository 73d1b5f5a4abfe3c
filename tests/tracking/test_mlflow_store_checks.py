"""Where `ops-eval mlflow` logs, checked before anything is logged: `--output` on the store or
inside its artifacts folder is refused; a store the command cannot use (a folder, a path under
a file, a text file, a database whose driver the mlflow group does not ship, a deleted
experiment) is bad input (exit 2) at once, from a run record or before a model is started; a
URI MLflow cannot use is bad input and an unreachable server infrastructure (exit 3), at once;
the default store is the checkout's SQLite file, and a server's URI is shown without the local
UI. Each test that reaches a store has its own fresh one (the `store` fixture)."""

from __future__ import annotations

import contextlib
import io
import sqlite3
import time
from pathlib import Path

import pytest
from mlflow_readback import db_of, error_lines, free_port, untouchable

from ops_eval.base.exits import OpsEvalError
from ops_eval.models.stand_ins import ScriptedLlm
from support import REPO

# -- --output on the store ------------------------------------------------------------------------


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


# -- Store problems are exit 2 before anything ----------------------------------------------------


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


# -- Where it logs --------------------------------------------------------------------------------


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
