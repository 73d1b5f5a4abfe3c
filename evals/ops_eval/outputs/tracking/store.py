"""The tracking store as `ops-eval mlflow` needs it: MLflow installed (the optional group, on
first use), a tracking server that answers, an experiment that can take runs -- each checked
before any model starts -- and the one evaluation call, with what can go wrong turned into one
line and an exit code; and the MLflow UI's command line over a local store (`ops-eval
mlflow-ui`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...base.exits import EXIT_BAD_INPUT, EXIT_INFRA, OpsEvalError, describe

GROUP = "mlflow"
MODULES = ("mlflow",)
WHAT = "MLflow, the optional 'mlflow' dependency group (about 35 packages, 300 MB)"


def ensure_mlflow(say: Callable[[str], None]) -> None:
    from ...base.groups import GroupMissing, ensure

    try:
        ensure(GROUP, MODULES, say, WHAT)
    except GroupMissing as exc:
        raise OpsEvalError(EXIT_INFRA, f"MLflow {exc}") from None


def reachable(target: Any) -> None:
    """A tracking server answers /health, or exit 3 now (MLflow itself retries for minutes).
    A user and password in the URI are sent as basic authentication, as MLflow sends them."""
    if target.sqlite_file is not None:
        return
    import base64
    from urllib.parse import urlsplit, urlunsplit

    from ...models.choice import probe

    parts = urlsplit(target.uri)
    headers = {}
    if parts.username is not None:
        token = f"{parts.username}:{parts.password or ''}".encode()
        headers["Authorization"] = "Basic " + base64.b64encode(token).decode()
        parts = parts._replace(netloc=parts.netloc.rsplit("@", 1)[1])
    ok, why = probe(urlunsplit(parts).rstrip("/") + "/health", timeout=5.0, headers=headers)
    if not ok:
        raise OpsEvalError(
            EXIT_INFRA, f"tracking server {target.shown} did not answer /health: {why}"
        )


def evaluate_or_exit(target: Any, **kwargs: Any) -> Any:
    """`evaluation.evaluate`, with a deleted experiment as exit 2, and MLflow's own failures
    (a store that cannot be written, a server that went away) and any crash as exit 3, one
    line saying what became of the logged model (finalised FAILED when one was started)."""
    from .evaluation import EvaluationFailed, StoreProblem, evaluate

    try:
        return evaluate(target, **kwargs)
    except StoreProblem as exc:
        raise OpsEvalError(EXIT_BAD_INPUT, str(exc)) from None
    except EvaluationFailed as exc:
        kept = (
            f"logged model {exc.model_id} is FAILED"
            if exc.model_id
            else "no logged model was started"
        )
        raise OpsEvalError(
            EXIT_INFRA, f"the evaluation in {target.shown} stopped ({exc}); {kept}"
        ) from None


def check_store(target: Any) -> None:
    """The store answers and the experiment can take runs, before any model starts."""
    from .evaluation import StoreProblem, open_experiment

    try:
        open_experiment(target)
    except StoreProblem as exc:
        raise OpsEvalError(EXIT_BAD_INPUT, str(exc)) from None
    except Exception as exc:  # MlflowException, or the database driver's own
        raise OpsEvalError(EXIT_INFRA, f"MLflow ({target.shown}): {describe(exc)}") from None


def ui_command(target: Any, port: int, say: Callable[[str], None]) -> list[str]:
    """The `mlflow ui` command line over `target`'s SQLite store, on loopback at `port`;
    exit 2 for a tracking server (open its own UI) or a store not made yet."""
    import sys
    from pathlib import Path

    if target.sqlite_file is None:
        raise OpsEvalError(
            EXIT_BAD_INPUT,
            f"MLFLOW_TRACKING_URI is {target.shown}: open that server's own UI in a browser",
        )
    if not target.sqlite_file.exists():
        raise OpsEvalError(
            EXIT_BAD_INPUT,
            f"no store at {target.sqlite_file} yet: run `mise run eval:mlflow` first",
        )
    ensure_mlflow(say)
    mlflow = str(Path(sys.executable).with_name("mlflow"))
    command = [mlflow, "ui", "--backend-store-uri", target.uri, "--host", "127.0.0.1"]
    # One worker: a UI for one person on loopback. MLflow's default of 4 uvicorn workers left
    # 8 processes busy after Ctrl-C; with 1 it answered in 12 s instead of 17-29 s here.
    command += ["--port", str(port), "--workers", "1"]
    if target.artifacts is not None:
        command += ["--default-artifact-root", str(target.artifacts)]
    return command
