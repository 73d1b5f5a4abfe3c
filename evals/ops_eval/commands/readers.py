"""`ops-eval readers`: measure every reader of answers against real answers labelled by hand, and
append the measurement the gate reads (`deciding.readers.measure`: what decides, the exit
codes); `ops-eval readers collect`: add a live run's trials to the labelled set, for labelling.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ..base import EXIT_FAILED, EXIT_OK, number_option


def add_parser(subparsers: Any) -> None:
    """Add `readers` (and `readers collect`) to the CLI's subcommands."""
    readers = subparsers.add_parser(
        "readers",
        help="measure every reader of answers (facts, grounded, complete, contains, "
        "not_contains, the answer guard) against real answers labelled by hand; append the "
        "measurement the gate reads",
    )
    readers.add_argument(
        "--folder", metavar="DIR", help="labelled set (default: evals/calibration)"
    )
    readers.add_argument(
        "--verbose", action="store_true", help="list every item a reader got wrong"
    )
    readers.add_argument("--format", choices=["text", "json"], default="text")
    readers.set_defaults(handler=run)
    more = readers.add_subparsers(dest="action")
    collect = more.add_parser("collect", help="add live runs' trials to the set, for labelling")
    collect.add_argument("records", nargs="+", metavar="RECORD", help="run record files")
    collect.add_argument("--tag", required=True, help="a short name for these runs, unique")
    collect.add_argument(
        "--temperature", type=number_option(), help="the sampling temperature of the runs"
    )
    collect.add_argument(
        "--folder", metavar="DIR", help="labelled set (default: evals/calibration)"
    )
    collect.set_defaults(handler=run_collect)


def run(args: argparse.Namespace) -> int:
    from ..deciding.readers import measure_readers, text_lines

    report, log = measure_readers(Path(args.folder) if args.folder else None)
    if args.format == "json":
        print(report.model_dump_json(indent=2))
    else:
        print("\n".join(text_lines(report, args.verbose, log)))
    return EXIT_OK if all(r.status == "meets" for r in report.readers) else EXIT_FAILED


def run_collect(args: argparse.Namespace) -> int:
    from ..deciding.readers import collect_answers, collected_lines, default_folder

    folder = Path(args.folder) if args.folder else default_folder()
    done = collect_answers([Path(r) for r in args.records], args.tag, folder, args.temperature)
    print("\n".join(collected_lines(done, folder)))
    return EXIT_OK
