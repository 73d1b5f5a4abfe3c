"""`ops-eval compare-hashes RUN_A RUN_B`: which answers and argument values two minimal-data
runs share, by their keyed hashes trial by trial (`results.minimal.compare`). Exit 0 compared;
2 a run that cannot be read, or hashes that do not compare (one kept text, or two keys).
"""

from __future__ import annotations

import argparse
from typing import Any

from ..base import EXIT_BAD_INPUT, EXIT_OK, OpsEvalError


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "compare-hashes",
        help="compare two minimal-data runs' answers and arguments by their keyed hashes",
    )
    p.add_argument("run_a", metavar="RUN_A", help="run record (path or run id)")
    p.add_argument("run_b", metavar="RUN_B", help="run record (path or run id)")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from ..base import current
    from ..results import NotComparable, compare, load, resolve_run

    runs_dir = current().runs_dir
    a = load(resolve_run(args.run_a, runs_dir), "RUN_A")
    b = load(resolve_run(args.run_b, runs_dir), "RUN_B")
    try:
        found = compare(a, b)
    except NotComparable as exc:
        raise OpsEvalError(EXIT_BAD_INPUT, f"nothing comparable: {exc}") from None
    key = a.data.key_id if a.data else "-"
    print(f"runs {a.run_id} and {b.run_id} (key id {key}): {found.line()}")
    return EXIT_OK
