"""`ops-eval history [--set S] [--model M] [--format table|csv|json|html] [--output PATH]`: every
run record under the runs folder as one row, oldest first, with each rate's denominator and
interval, as a table unless asked (`outputs.history`: its rows, formats and exit codes);
`--mutation`: the mutation scores (`mutation.mutation_history`).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..base import EXIT_OK
from ..outputs.history import FORMATS


def run(args: argparse.Namespace) -> int:
    from ..mutation import mutation_history
    from ..outputs.history import export_history

    if args.mutation:
        text, count, out = mutation_history(args.set, args.format, args.output)
        said = f"mutation history: {count} score(s) -> {out}"
    else:
        text, count, out = export_history(args.set, args.model, args.format, args.output)
        said = f"history: {count} run(s) -> {out}"
    if out is None:
        sys.stdout.write(text)
    else:
        print(said, file=sys.stderr)
    return EXIT_OK


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add `history` to `ops-eval`'s subcommands; it sets `handler`."""
    history = subparsers.add_parser(
        "history",
        help="every run record under the runs folder, one row per run: pass rate with its "
        "interval, pass^k, tokens, time, what changed since the series' previous run",
    )
    history.add_argument(
        "--set",
        metavar="S",
        help="only runs of this eval set: a path it ends with, or its name (ops)",
    )
    history.add_argument("--model", metavar="M", help="only runs of this model (exact name)")
    history.add_argument(
        "--format",
        choices=FORMATS,
        help="default: the --output suffix if it is one of these, else table (csv: for machines)",
    )
    history.add_argument("--output", metavar="PATH", help="write to this file (default: stdout)")
    history.add_argument(
        "--mutation",
        action="store_true",
        help="the eval sets' mutation scores instead (ops-eval mutate's ledger): table, csv, json",
    )
    history.set_defaults(handler=run)
    return history
