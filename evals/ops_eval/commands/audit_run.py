"""`ops-eval audit-run RUN`: does a minimal-data run's every artefact hold nothing it must not?
The record, each `--also` file, with `--mlflow` what MLflow logged of it; with `--planted FILE`
each value byte for byte. A leak is named by artefact and place, never shown. What is scanned
and the exit codes: `results.data_audit` (3: the MLflow store cannot be read).
"""

from __future__ import annotations

import argparse
from typing import Any


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "audit-run",
        help="scan a minimal-data run's artefacts (record, logs, reports, MLflow) for text it "
        "must not hold; exit 1 naming each leak",
    )
    p.add_argument("run", metavar="RUN", help="run record (path or run id)")
    p.add_argument(
        "--also",
        action="append",
        default=[],
        metavar="PATH",
        help="another artefact of the run to scan: its console log, a report, a history export "
        "(a folder: every file in it); repeatable",
    )
    p.add_argument(
        "--planted",
        metavar="FILE",
        help="values that must appear nowhere, one a line (the secrets planted for a test)",
    )
    p.add_argument(
        "--mlflow",
        action="store_true",
        help="also scan what MLflow (MLFLOW_TRACKING_URI) logged of the run, and its store's files",
    )
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from ..outputs.tracking import scan_store
    from ..results import audit_run

    code, lines = audit_run(args.run, args.also, args.planted, scan_store if args.mlflow else None)
    for line in lines:
        print(line)
    return code
