"""`ops-eval seed [--seed-dir DIR]`: load the seed and cross-check it (services, incidents,
runbooks, logs, skills); exit 2 naming file, record and field when it does not load."""

from __future__ import annotations

import argparse
from typing import Any

from ..base import EXIT_OK


def add_parser(subparsers: Any) -> None:
    seed = subparsers.add_parser("seed", help="load and cross-check the seed")
    seed.add_argument(
        "--seed-dir", default=None, help="seed folder (default: OPS_SEED_DIR or seed/)"
    )
    seed.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from ..agents import load_seed

    seed = load_seed(args.seed_dir)
    skills = seed.skills
    print(
        f"seed ok: {len(seed.services)} services, {len(seed.incidents)} incidents, "
        f"{len(seed.runbooks)} runbooks, {len(seed.logs)} logs, {len(skills)} skills "
        f"(sha256 {seed.digest[:12]})"
    )
    return EXIT_OK
