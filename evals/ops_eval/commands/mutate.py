"""`ops-eval mutate`: would the eval set notice if the agent broke? Deterministic mutants played
offline with the scripted oracle (`mutation.offline`), or with `--live` instruction mutants on
a model, reported, not gated (`mutation.live`); each score goes to the mutation ledger. Exit 0
the floor met and every must-kill mutant killed (--live: they ran); 1 not; 2 bad input; 3 the
live model or the tracking store could not be reached.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ..base import EXIT_OK, add_agent_option
from ..mutation import add_live_options


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "mutate",
        help="mutation testing of the eval set: which broken agents it lets through (offline, "
        "the scripted oracle)",
    )
    p.add_argument("--set", help="eval set file (default: evals/ops.evalset.json)")
    add_agent_option(p)
    p.add_argument("--mutants", help="comma-separated mutant names (default: all)")
    p.add_argument(
        "--redteam",
        action="store_true",
        help="also run the deterministic red team under each guard mutant the set lets "
        "survive, which it must then kill (about 45 s a mutant)",
    )
    add_live_options(p)
    p.add_argument(
        "--mlflow",
        action="store_true",
        help="also log the score to MLflow (MLFLOW_TRACKING_URI, else mlflow.db here)",
    )
    p.set_defaults(handler=run)


def _live(args: argparse.Namespace, plan: Any, policy: Any, mutants: list[Any]) -> int:
    """Instruction mutants on the live model: reported, not gated (exit 0 once they ran)."""
    from ..mutation import play_live
    from ..outputs.report import run_summary

    wanted = (args.cases, args.repeats, args.timeout, args.scorers)
    _keep(args, play_live(plan, policy, mutants, wanted, run_summary))
    return EXIT_OK


def run(args: argparse.Namespace) -> int:
    from ..base import bad_input, current
    from ..mutation import check_modes, entry_for, mutate, said, select_mutants
    from ..validation import GateConfigError, gate_path, load_plan, read_gate_config

    check_modes(args)
    set_path = Path(args.set) if args.set else current().evals_dir / "ops.evalset.json"
    plan = load_plan(set_path)
    mutants, names = select_mutants(plan, args.mutants, live=args.live, redteam=args.redteam)
    if args.mlflow:  # a store the configuration cannot use is refused before anything plays
        from ..outputs.tracking import tracking_target

        tracking_target()
    try:
        policy, _ = read_gate_config(gate_path(set_path.parent))
    except GateConfigError as exc:
        raise bad_input(str(exc)) from None
    if args.live:
        return _live(args, plan, policy, [mutants[n] for n in names])
    result = mutate(plan, [mutants[n] for n in names], policy.mutation.equivalent)
    if args.redteam:
        from ..mutation import with_redteam

        result = with_redteam(result, plan)
    complete = len(names) == len(mutants)
    lines, code = said(result, policy.mutation, complete)
    print("\n".join(lines))
    mode = "oracle+redteam" if args.redteam else "oracle"
    _keep(args, entry_for(plan.evalset, mode, "oracle (scripted)", result.verdicts, complete))
    return code


def _keep(args: argparse.Namespace, entry: Any) -> None:
    """The score into the runs folder's mutation ledger, and into MLflow with --mlflow."""
    from ..base import current
    from ..mutation import append

    print(f"mutation ledger: {append(entry, current().runs_dir)}")
    if args.mlflow:
        from ..mutation import log_mutation

        for line in log_mutation(entry):
            print(line)
