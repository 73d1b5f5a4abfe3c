"""`ops-eval baseline pin RUN --name NAME [--by WHO]` and `ops-eval baseline list`: named
baselines, kept as checked copies and recorded in the gate ledger; `ops-eval gate --pinned NAME`
compares with one.
"""

from __future__ import annotations

import argparse
from typing import Any

from ..base import EXIT_OK


def add_parser(subparsers: Any) -> None:
    base = subparsers.add_parser("baseline", help="pin a run as a named baseline, or list pins")
    sub = base.add_subparsers(dest="baseline_command", required=True)
    pin = sub.add_parser("pin", help="pin RUN as the baseline NAME")
    pin.add_argument("run", help="run record path or run id")
    pin.add_argument("--name", required=True)
    pin.add_argument("--by", help="who pins it")
    pin.set_defaults(handler=run_pin)
    sub.add_parser("list", help="the pinned baselines").set_defaults(handler=run_list)


def run_pin(args: argparse.Namespace) -> int:
    from ..deciding.gate import pin as pin_run
    from ..deciding.ledger import default_ledger

    entry = pin_run(default_ledger(), args.run, args.name, args.by)
    print(f"pinned {entry.name}: run {entry.run} ({entry.path}, sha256 {entry.sha256[:12]})")
    return EXIT_OK


def run_list(args: argparse.Namespace) -> int:
    from ..deciding.gate import pin_lines
    from ..deciding.ledger import default_ledger

    print("\n".join(pin_lines(default_ledger())))
    return EXIT_OK
