"""`ops-eval cases lock|bump|check|list`: each case's version, in the lock beside its set
(`validation.lock_edits`, `validation.lock_history`). A case is added with `lock` (version 1),
corrected with `bump` (the next version, with a reason), never edited in place; CI's `check
--against REF` refuses a lock rewritten since REF. Exit 0 done; 1 refused (one line per case,
nothing written); 2 bad input; 3 git could not run.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..base import EXIT_OK


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser("cases", help="version eval cases: lock, bump, check, list")
    sub = p.add_subparsers(dest="action", required=True)
    lock = sub.add_parser("lock", help="lock every case not in its set's lock at version 1")
    lock.add_argument("sets", nargs="*", metavar="SET", help="eval set files (default: evals/)")
    bump = sub.add_parser("bump", help="a corrected case's next version, with why")
    bump.add_argument("ids", nargs="+", metavar="ID", help="the corrected cases' eval ids")
    bump.add_argument("--reason", required=True, help="why this version was minted")
    bump.add_argument("--set", help="the eval set file (default: the one of evals/ holding ID)")
    check = sub.add_parser("check", help="CI: refuse a lock rewritten since a git ref")
    check.add_argument("--against", required=True, metavar="REF", help="e.g. the merge base")
    check.add_argument("sets", nargs="*", metavar="SET", help="eval set files (default: evals/)")
    listing = sub.add_parser("list", help="each case's version and reason")
    listing.add_argument("sets", nargs="*", metavar="SET", help="eval set files (default: evals/)")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from ..validation import bump_cases, case_rows, check_against, lock_sets

    if args.action == "list":
        print("\n".join(case_rows(args.sets)))
        return EXIT_OK
    if args.action == "lock":
        outcome = lock_sets(args.sets)
    elif args.action == "bump":
        outcome = bump_cases(args.ids, args.reason, args.set)
    else:
        outcome = check_against(args.against, args.sets)
    for line in outcome.done + outcome.refused:
        print(line)
    if outcome.refused:
        print(f"{len(outcome.refused)} {outcome.refusal}", file=sys.stderr)
    return outcome.code
