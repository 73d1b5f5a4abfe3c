"""`ops-eval redteam`: the injection corpus against the agent -- the deterministic suite, or with
`--live` the configured model (`redteam.corpus_run`: the corpus chosen, each mode, exit codes).
The deterministic suite prints a short summary led by its verdict and writes every table to an
HTML report (`redteam.report`); `--verbose` prints the tables too.
"""

from __future__ import annotations

import argparse
from typing import Any


def add_parser(subparsers: Any) -> None:
    red = subparsers.add_parser(
        "redteam", help="deterministic injection suite, obedient and cautious scripted attackers"
    )
    red.add_argument("--corpus", action="append", metavar="FILE",
                     help="more attacks in the evals/redteam format (repeatable)")  # fmt: skip
    red.add_argument(
        "--benign", metavar="FILE", help="benign corpus (default: evals/redteam/benign.yaml)"
    )
    red.add_argument("--attacks", help="comma-separated attack ids (default: all)")
    red.add_argument("--verbose", action="store_true", help="print every table after the summary")
    red.add_argument("--report", metavar="PATH", help="HTML report (default: runs/redteam.html)")
    red.add_argument("--live", action="store_true",
        help="run the corpus against the configured model (utility, utility under attack, ASR)",
    )  # fmt: skip
    red.add_argument("--model", help="with --live: model (else OPS_AGENT_MODEL, Ollama, embedded)")
    red.add_argument("--modes", default="shipped", help="with --live: shipped,no-spotlight")
    red.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from ..base import unwind_on_signals
    from ..redteam import chosen_corpus, run_deterministic, run_live

    attacks, benign, seed = chosen_corpus(args.corpus, args.benign, args.attacks)
    if args.live:
        unwind_on_signals()
        lines, code = run_live(attacks, seed, args.model, args.modes, args.report)
    else:
        lines, code = run_deterministic(attacks, benign, seed, args.report, verbose=args.verbose)
    print("\n".join(lines))
    return code
