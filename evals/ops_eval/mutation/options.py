"""`ops-eval mutate`'s options: the live group's (argparse only, so the CLI's parser, built on
every start, imports nothing heavy for it) and the check that one mode's options are refused in
the other, never silently ignored (exit 2).
"""

from __future__ import annotations

from typing import Any

REPEATS, TIMEOUT_S = 3, 600.0  # --live's trials per case and arm, and seconds per trial


def add_live_options(p: Any) -> None:
    """The `live` group of `ops-eval mutate`'s parser `p`."""
    live = p.add_argument_group(
        "live",
        "instruction mutants on a live model (--live), each compared with the unmutated "
        "agent by the gate's statistics",
    )
    live.add_argument(
        "--live",
        action="store_true",
        help="run instruction mutants (a rule of the instruction removed or reversed) on the "
        "configured model (OPS_AGENT_MODEL; default: the embedded one) instead of the "
        "deterministic mutants",
    )
    live.add_argument("--cases", help="comma-separated case ids (default: all)")
    live.add_argument("--repeats", type=int, help=f"trials per case and arm ({REPEATS})")
    live.add_argument("--timeout", type=float, help=f"seconds per trial ({TIMEOUT_S:g})")
    live.add_argument(
        "--scorers",
        help="comma-separated scorers that decide a trial's verdict in the comparison (default: "
        "gate.yaml's gating_scorers); e.g. trajectory,tool_policy for a model whose answers "
        "fail every answer scorer, so its calls can still tell a mutant",
    )


def check_modes(args: Any) -> None:
    """Exit 2 for an option of one mode given in the other, or a count or timeout `run` would
    refuse too; then --live's repeats and timeout in `args` (their defaults when not given)."""
    from ..base.inputs import MAX_REPEATS, bad_input, count, trial_timeout

    if args.repeats is not None:  # refused as `run` refuses it, with or without --live
        count("--repeats", args.repeats, MAX_REPEATS)
    if args.timeout is not None:
        trial_timeout("--timeout", args.timeout)
    alone = [
        f"--{n}" for n in ("cases", "scorers", "repeats", "timeout") if getattr(args, n) is not None
    ]
    if not args.live and alone:
        raise bad_input(
            f"{', '.join(alone)}: go with --live (the oracle plays every case once, offline)"
        )
    if args.live and args.redteam:
        raise bad_input("--redteam plays the guard mutants, not --live's instruction mutants")
    args.repeats = REPEATS if args.repeats is None else args.repeats
    args.timeout = TIMEOUT_S if args.timeout is None else args.timeout
