"""`ops-eval ab RUN_A RUN_B [--format text|json]`: which of two runs answered the same eval set
better, pair by pair, in a way a judge's position bias cannot decide. RUN_A and RUN_B are
resolved as the gate resolves a RUN. How pairs are judged (or, with no judge, compared by the
deterministic gating verdicts) and the exit codes: `judging.ab.compare`.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any, TextIO

from ..base import exit_code_of, unwind_on_signals

if TYPE_CHECKING:  # `ops-eval`'s parser imports this module: nothing heavy at start-up
    from ..judging import Budget


def run_ab(
    args: argparse.Namespace,
    out: TextIO | None = None,
    err: TextIO | None = None,
    *,
    budget: Budget | None = None,
) -> int:
    """The command: the report on `out`, messages on `err`; the exit code. `budget` replaces
    the gate policy's (tests)."""
    from ..judging.ab import compare_runs, text_lines

    out, err = out or sys.stdout, err or sys.stderr

    def report() -> int:
        done = compare_runs(args.run_a, args.run_b, err, budget)
        lines = [done.model_dump_json(indent=1)] if args.format == "json" else text_lines(done)
        print("\n".join(lines), file=out)
        return done.exit_code

    return exit_code_of(report, err)


def run(args: argparse.Namespace) -> int:
    unwind_on_signals()  # SIGTERM unwinds too, so an embedded judge server is stopped
    return run_ab(args)


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add `ab` to `ops-eval`'s subcommands; it sets `handler`."""
    ab = subparsers.add_parser(
        "ab",
        help="which of two runs of one eval set answered better, pair by pair: a judge asked "
        "in both orders (a winner only when both agree), else the deterministic gating "
        "verdicts (scorers that use a judge left out)",
    )
    ab.add_argument("run_a", metavar="RUN_A", help="run record path, run id or id prefix")
    ab.add_argument("run_b", metavar="RUN_B", help="the run to compare it with")
    ab.add_argument("--format", choices=["text", "json"], default="text")
    ab.set_defaults(handler=run)
    return ab
