"""Fixtures of MLflow (a pytest plugin: tests/conftest.py loads it): the optional `mlflow` group
installed on first use, a fresh SQLite tracking store per test, `ops-eval mlflow` in-process,
and a client on the store. The MLflow tests (tests/tracking/) use them, and so do the tests of
what minimal data and mutation scores leave in a store."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def mlflow_installed():
    """The optional `mlflow` group, installed on first use as the command installs it, so the
    MLflow tests (tests/tracking/) never skip on a fresh machine."""
    from ops_eval.outputs.tracking.store import ensure_mlflow

    ensure_mlflow(print)


@pytest.fixture
def store(tmp_path: Path, ops_env, mlflow_installed):
    """A fresh SQLite tracking store and runs folder for this test (MLflow installed); the
    URI."""
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    ops_env.setenv("MLFLOW_TRACKING_URI", uri)
    ops_env.setenv("OPS_RUNS_DIR", str(tmp_path / "runs"))
    for name in ("MLFLOW_EXPERIMENT_NAME", "MLFLOW_JUDGE_MODEL", "MLFLOW_JUDGE_BASE_URL",
                 "MLFLOW_JUDGE_API_KEY"):  # fmt: skip
        ops_env.delenv(name)
    return uri


@pytest.fixture
def mlflow_cli(store, capsys):
    """`ops-eval mlflow ARGV` in this process, with `model` (a deterministic test model) in
    place of model selection when given: (exit code, stdout, stderr)."""
    from ops_eval.base.exits import OpsEvalError
    from ops_eval.cli import build_parser
    from ops_eval.commands.mlflow import run_mlflow
    from ops_eval.models.stand_ins import fixed_model

    def run(argv: list[str], model=None) -> tuple[int, str, str]:
        args = build_parser().parse_args(["mlflow", *argv])
        chooser = None
        if model is not None:
            chooser = fixed_model(
                model, getattr(model, "model", "test"), "deterministic test model"
            )
        try:
            code = run_mlflow(args, chooser=chooser)
        except OpsEvalError as exc:
            print(f"error: {exc}", file=__import__("sys").stderr)
            code = exc.code
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return run


@pytest.fixture
def client(store):
    """An MLflow client on this test's store."""
    import mlflow

    mlflow.set_tracking_uri(store)
    return mlflow.MlflowClient(store)
