"""`ops-eval merge RUN...`: the shard records of one run merged and written (`results.merge`).
Exit: the merged run's own (0 gate passed, 1 failed, 3 every trial an error); 2 shards that are
not the shards of one run, or an output that would overwrite one.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any


def run(args: argparse.Namespace) -> int:
    from ..mutation import mutation_line
    from ..outputs.report import run_summary
    from ..results import merge_runs

    output = Path(args.output) if args.output else None
    record, path = merge_runs(args.runs, output, lambda line: print(line, file=sys.stderr))
    print("\n".join(run_summary(record, path, mutation_line)))
    return record.exit_code


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add `merge` to `ops-eval`'s subcommands; it sets `handler`."""
    parser = subparsers.add_parser(
        "merge",
        help="merge the shard records of one run (`run --shard I/N`) into its run record",
    )
    parser.add_argument("runs", nargs="+", metavar="RUN", help="shard record: path or run id")
    parser.add_argument("--output", metavar="PATH", help="merged record path (default: runs/...)")
    parser.set_defaults(handler=run)
    return parser
