"""`ops-eval gate override RUN --reason WHY --by WHO` (the subcommand `gate-override`): who
accepted a failed gate, and why, appended to the gate ledger. The failed decision stays;
`ops-eval gate` then reports it overridden. Exit 2 for a run with no failed verdict to override,
a reason or name that does not clear the bar, or a ledger that does not verify.
"""

from __future__ import annotations

import argparse
from typing import Any

from ..base import EXIT_OK


def add_parser(subparsers: Any) -> None:
    override = subparsers.add_parser(
        "gate-override",
        prog="ops-eval gate override",
        help="record who overrode a failed gate, and why (append-only)",
    )
    override.add_argument("run", help="run record path or run id")
    override.add_argument("--reason", required=True, help="why (at least 10 characters)")
    override.add_argument("--by", required=True, help="who decides")
    override.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from ..base import current
    from ..deciding.gate import record_override
    from ..deciding.ledger import default_ledger
    from ..results import load, resolve_run

    record = load(resolve_run(args.run, current().runs_dir), "run")
    entry = record_override(default_ledger(), record.run_id, args.reason, args.by)
    print(
        f"overridden: run {entry.candidate}, whose gate FAILED (against baseline "
        f"{entry.baseline or 'none'}), by {entry.by} at {entry.at}: {entry.reason}"
    )
    print("the failed decision stays in the ledger; `ops-eval gate` now reports it overridden")
    return EXIT_OK


def rewrite_argv(argv: list[str]) -> list[str]:
    """`gate override ...` is parsed as the `gate-override` subcommand."""
    if argv[:2] == ["gate", "override"]:
        return ["gate-override", *argv[2:]]
    return argv
