"""The MLflow tests: the optional `mlflow` group is installed on first use, as the command
installs it, so these tests never skip on a fresh machine. Every test gets its own SQLite store
and runs folder; only these tests import MLflow (`test_offline_commands_never_import_mlflow`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import REPO


@pytest.fixture(scope="session", autouse=True)
def _mlflow_installed():
    from ops_eval.groups import ensure
    from ops_eval.tracking.command import GROUP, MODULES, WHAT

    ensure(GROUP, MODULES, print, WHAT)


@pytest.fixture
def store(tmp_path: Path, ops_env):
    """A fresh SQLite tracking store and runs folder for this test; the URI."""
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    ops_env.setenv("MLFLOW_TRACKING_URI", uri)
    ops_env.setenv("OPS_RUNS_DIR", str(tmp_path / "runs"))
    for name in ("MLFLOW_EXPERIMENT_NAME", "MLFLOW_JUDGE_MODEL", "MLFLOW_JUDGE_BASE_URL",
                 "MLFLOW_JUDGE_API_KEY"):  # fmt: skip
        ops_env.delenv(name)
    return uri


OPS_SET = REPO / "evals" / "ops.evalset.json"


@pytest.fixture
def mlflow_cli(store, capsys):
    """`ops-eval mlflow ARGV` in this process, with `model` (a deterministic test model) in
    place of model selection when given: (exit code, stdout, stderr)."""
    from ops_eval.cli import build_parser
    from ops_eval.exits import OpsEvalError
    from ops_eval.testing import fixed_model
    from ops_eval.tracking.command import run_mlflow

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
