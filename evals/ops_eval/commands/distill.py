"""`ops-eval distill RUN CASE[#REPEAT] [--output SET] [--id ID]`: one trial of a run -- a scripted
case or a scenario -- as a draft eval case, printed, or added to an eval set file
(`results.distill`: how it is drafted and written). `ops-eval validate` refuses the draft until
a person has set its expectations.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from ..base import EXIT_OK


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "distill", help="turn a trial of a run into a draft eval case, for review"
    )
    p.add_argument("run", help="run record path or run id")
    p.add_argument("trial", metavar="CASE[#REPEAT]", help="the trial (repeat 1 by default)")
    p.add_argument("--output", metavar="SET", help="eval set file to add the draft to")
    p.add_argument("--id", help="the draft's eval id (default: CASE-draft-rREPEAT)")
    p.set_defaults(handler=run_distill)


def run_distill(args: argparse.Namespace) -> int:
    from ..results import add_draft, drafted

    case, eval_id = drafted(args.run, args.trial, args.id)
    if args.output is None:
        print(json.dumps(case, indent=2))
        return EXIT_OK
    target, lock = add_draft(Path(args.output), case, eval_id)
    locked = f" (version 1 in {lock})" if lock else ""
    print(f"draft {eval_id} added to {target}{locked}: review it, then `ops-eval cases lock`")
    return EXIT_OK
