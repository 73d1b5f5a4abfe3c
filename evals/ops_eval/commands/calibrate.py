"""`ops-eval calibrate`: measure the configured judge against the set's labels and append the
report the gate reads (`judging.calibration.session`: what is checked before the judge is
asked, what certifies, the exit codes)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ..base import number_option


def add_parser(subparsers: Any) -> None:
    """Add `calibrate` to the CLI's subcommands."""
    from ..judging.calibration import TARGET

    cal = subparsers.add_parser(
        "calibrate",
        help="measure the judge (OPS_JUDGE_*) against answers labelled by hand (by this "
        "project's engineer; see the set's header); append the report the gate reads (only the "
        "project's set certifies)",
    )
    cal.add_argument(
        "--set",
        metavar="PATH",
        help="calibration set (default: evals/calibration/set.yaml, the project's: only it "
        "certifies a judge; a report on another set is kept but does not certify)",
    )
    cal.add_argument(
        "--min-agreement",
        type=number_option(),
        metavar="X",
        help=f"raise the agreement target (default {TARGET.agreement:g}; never lower)",
    )
    cal.add_argument(
        "--min-kappa",
        type=number_option(),
        metavar="Y",
        help=f"raise the kappa target (default {TARGET.kappa:g}; never lower)",
    )
    cal.add_argument("--format", choices=["text", "json"], default="text")
    cal.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from ..base import unwind_on_signals
    from ..judging.calibration import as_json, calibrate_judge, text_lines

    unwind_on_signals()  # Ctrl-C and SIGTERM stop an embedded judge's server
    chosen = Path(args.set) if args.set else None
    done = calibrate_judge(chosen, args.min_agreement, args.min_kappa, sys.stderr)
    shown = (done.report, done.log_path, done.line)
    if args.format == "json":
        print(as_json(*shown, counts=done.counts, gate=done.gate, trust=done.trust))
    else:
        for text in text_lines(*shown, gate=done.gate, trust=done.trust):
            print(text)
    return done.exit_code
