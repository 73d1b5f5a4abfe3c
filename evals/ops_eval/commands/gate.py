"""`ops-eval gate [RUN]`: is a run worse than its baseline, by more than noise? The decision and
its exit codes: `deciding.gate.decide`; each is appended to the gate ledger, which an override
(`gate_override`) and the next baseline choice read (`baseline`).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..base import OpsEvalError, number_option
from ..deciding.gate import BLOCKING


def run(args: argparse.Namespace) -> int:
    from ..deciding.gate import as_json, decide_gate, github_lines, text_lines
    from ..judging import check_judges

    try:
        decision = decide_gate(
            args.run,
            baseline=args.baseline,
            pinned=args.pinned,
            allow_change=args.allow_change,
            suite_threshold=args.suite_threshold,
            regression_threshold=args.regression_threshold,
            require_baseline=args.require_baseline,
            check_judges=check_judges,
        )
    except OpsEvalError as exc:
        if args.format == "github":  # the job's summary shows why the gate did not decide
            from ..deciding.gate import workflow_message

            print(f"::error title=ops-eval gate::{workflow_message(str(exc))}")
        raise
    if decision.unrecorded:
        print(f"error: the decision was not recorded: {decision.unrecorded}", file=sys.stderr)
    if args.format == "json":
        print(as_json(decision))
    else:
        for line in github_lines(decision) if args.format == "github" else text_lines(decision):
            print(line)
    return decision.exit_code


def add_parser(subparsers: Any) -> None:
    gate = subparsers.add_parser(
        "gate", help="is a run worse than its baseline, by more than noise? (exit 1 if so)"
    )
    gate.add_argument("run", nargs="?", help="run record path or run id (default: the newest)")
    which = gate.add_mutually_exclusive_group()
    which.add_argument("--baseline", metavar="RUN", help="compare with this run (path or id)")
    which.add_argument("--pinned", metavar="NAME", help="compare with the baseline pinned as NAME")
    gate.add_argument(
        "--allow-change",
        action="append",
        metavar="KIND",
        help=f"compare although this changed (comma-separated; blocking kinds: "
        f"{', '.join(BLOCKING)})",
    )
    gate.add_argument(
        "--suite-threshold",
        type=number_option(fraction=True),
        metavar="X",
        help="raise the pass rate required",
    )
    gate.add_argument(
        "--regression-threshold",
        type=number_option(fraction=True),
        metavar="X",
        help="lower the drop allowed (stricter only)",
    )
    gate.add_argument(
        "--require-baseline", action="store_true", help="exit 2 when no baseline is found"
    )
    gate.add_argument("--format", choices=["text", "json", "github"], default="text")
    gate.set_defaults(handler=run)
