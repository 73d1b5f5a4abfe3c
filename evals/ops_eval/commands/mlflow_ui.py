"""`ops-eval mlflow-ui` (`mise run mlflow:ui`): the MLflow UI over the SQLite store
`ops-eval mlflow` logs to, found the same way (MLFLOW_TRACKING_URI, else mlflow.db here)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ..base.exits import EXIT_BAD_INPUT, EXIT_OK, OpsEvalError


def add_parser(subparsers: Any) -> None:
    ui = subparsers.add_parser("mlflow-ui", help="the MLflow UI over the local SQLite store")
    ui.add_argument("--port", type=int, default=5000)
    ui.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """The MLflow UI over the store `ops-eval mlflow` logs to, when that store is SQLite."""
    import os

    from ..base.inputs import tcp_port
    from ..outputs.tracking.config import tracking_target
    from ..outputs.tracking.store import ensure_mlflow

    target = tracking_target()
    port = tcp_port("--port", args.port)
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
    ensure_mlflow(lambda line: print(line, file=sys.stderr, flush=True))
    mlflow = str(Path(sys.executable).with_name("mlflow"))
    command = [mlflow, "ui", "--backend-store-uri", target.uri, "--host", "127.0.0.1"]
    command += ["--port", str(port)]
    if target.artifacts is not None:
        command += ["--default-artifact-root", str(target.artifacts)]
    print(
        f"MLflow UI on http://127.0.0.1:{port} over {target.uri}: it answers after about "
        "30 s (Ctrl-C stops it)"
    )
    os.environ.setdefault("MLFLOW_DISABLE_TELEMETRY", "true")
    os.execv(mlflow, command)
    return EXIT_OK  # not reached
