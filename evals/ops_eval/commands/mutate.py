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

from ..base import EXIT_FAILED, EXIT_OK, add_agent_option

REPEATS, TIMEOUT_S = 3, 600.0  # --live's trials per case and arm, and seconds per trial


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
    p.add_argument(
        "--mlflow",
        action="store_true",
        help="also log the score to MLflow (MLFLOW_TRACKING_URI, else mlflow.db here)",
    )
    p.set_defaults(handler=run)


def _live(args: argparse.Namespace, plan: Any, policy: Any, mutants: list[Any]) -> int:
    """Instruction mutants on the live model: reported, not gated (exit 0 once they ran)."""
    from .. import mutation
    from ..base import current
    from ..outputs.report import summary_lines

    repeats = REPEATS if args.repeats is None else args.repeats
    timeout = TIMEOUT_S if args.timeout is None else args.timeout
    options, policy, chosen = mutation.live_run_options(
        plan, policy, args.cases, repeats, timeout, args.scorers
    )
    if chosen:
        print(f"a trial's verdict here: the scorers {', '.join(chosen)} (--scorers)")
    folder = mutation.live_folder(current().runs_dir)
    verdicts = mutation.mutate_live(options, mutants, policy, folder, summary=summary_lines)
    for line in mutation.live_lines(verdicts, plan.evalset.display, folder):
        print(line)
    model = next(iter(verdicts)).model if verdicts else "unknown"
    complete = len(mutants) == len(mutation.instruction_mutants())
    _keep(args, mutation.entry_for(plan.evalset, "live", model, verdicts, complete))
    return EXIT_OK


def run(args: argparse.Namespace) -> int:
    from ..base import bad_input, current
    from ..mutation import entry_for, floor_problems, mutate, select_mutants, verdict_lines
    from ..validation import GateConfigError, gate_path, load_plan, read_gate_config

    _check_modes(args)
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
    problems = floor_problems(result, policy.mutation, len(names) == len(mutants))
    for line in verdict_lines(result) + [f"FAILED: {p}" for p in problems]:
        print(line)
    mode = "oracle+redteam" if args.redteam else "oracle"
    complete = len(names) == len(mutants)
    _keep(args, entry_for(plan.evalset, mode, "oracle (scripted)", result.verdicts, complete))
    return EXIT_FAILED if problems else EXIT_OK


def _check_modes(args: argparse.Namespace) -> None:
    """The options of one mode refused in the other, never silently ignored (exit 2)."""
    from ..base import MAX_REPEATS, bad_input, count, trial_timeout

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


def _keep(args: argparse.Namespace, entry: Any) -> None:
    """The score into the runs folder's mutation ledger, and into MLflow with --mlflow."""
    from ..base import current
    from ..mutation import append

    print(f"mutation ledger: {append(entry, current().runs_dir)}")
    if args.mlflow:
        from ..mutation import log_mutation

        for line in log_mutation(entry):
            print(line)
