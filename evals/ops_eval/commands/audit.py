"""`ops-eval audit verify [DB]`: does a state store file still tell the truth? What is checked,
the head to keep, and the exit codes: `deciding.store_audit`."""

from __future__ import annotations

import argparse
from typing import Any


def run(args: argparse.Namespace) -> int:
    from ..deciding import verify_store

    code, lines = verify_store(args.db, args.expect_head)
    for line in lines:
        print(line)
    return code


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add `audit` (with `verify`) to `ops-eval`'s subcommands; each sets `handler`."""
    audit = subparsers.add_parser("audit", help="check a state store's audit log and notes")
    sub = audit.add_subparsers(dest="audit_command", required=True)
    verify = sub.add_parser(
        "verify",
        help="is the audit trail intact and does it explain every status (exit 1 if not)",
    )
    verify.add_argument("db", nargs="?", help="state store file (default: OPS_STATE_DB)")
    verify.add_argument(
        "--expect-head",
        metavar="HEAD",
        help="a head an earlier verify printed, kept outside the store: exit 1 unless the "
        "ledgers still extend it (catches deleted newest rows)",
    )
    verify.set_defaults(handler=run)
    return audit
