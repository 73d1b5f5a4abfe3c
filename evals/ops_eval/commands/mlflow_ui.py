"""`ops-eval mlflow-ui` (`mise run mlflow:ui`): the MLflow UI over the SQLite store
`ops-eval mlflow` logs to, found the same way (MLFLOW_TRACKING_URI, else mlflow.db here)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..base import EXIT_OK


def add_parser(subparsers: Any) -> None:
    ui = subparsers.add_parser("mlflow-ui", help="the MLflow UI over the local SQLite store")
    ui.add_argument("--port", type=int, default=5000)
    ui.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """The MLflow UI over the store `ops-eval mlflow` logs to, when that store is SQLite."""
    import os

    from ..base import tcp_port
    from ..outputs.tracking import tracking_target, ui_command

    target = tracking_target()
    port = tcp_port("--port", args.port)
    command = ui_command(target, port, lambda line: print(line, file=sys.stderr, flush=True))
    print(
        f"MLflow UI on http://127.0.0.1:{port} over {target.uri}: it answers after about "
        "15 s (Ctrl-C stops it)"
    )
    os.environ.setdefault("MLFLOW_DISABLE_TELEMETRY", "true")
    os.execv(command[0], command)
    return EXIT_OK  # not reached
