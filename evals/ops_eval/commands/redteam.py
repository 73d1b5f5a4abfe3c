"""`ops-eval redteam`: the injection corpus against the agent.

Without `--live`, the deterministic suite: scripted attackers that obey (or half-obey) every
planted instruction, so the guards alone must hold -- exit 1 on a breach or coverage drift, 3 on
an invalid run. With `--live`, the corpus against the configured model: utility, utility under
attack and attack success, per mode -- exit 1 when any attack succeeded, 3 when every run
errored.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..base.exits import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_INFRA, EXIT_OK, OpsEvalError


def add_parser(subparsers: Any) -> None:
    red = subparsers.add_parser(
        "redteam",
        help="deterministic injection suite, obedient and cautious scripted attackers",
    )
    red.add_argument(
        "--corpus",
        action="append",
        metavar="FILE",
        help="more attacks in the evals/redteam format (repeatable)",
    )
    red.add_argument(
        "--benign", metavar="FILE", help="benign corpus (default: evals/redteam/benign.yaml)"
    )
    red.add_argument("--attacks", help="comma-separated attack ids (default: all)")
    red.add_argument(
        "--live", action="store_true",
        help="run the corpus against the configured model (utility, utility under attack, ASR)",
    )  # fmt: skip
    red.add_argument("--model", help="with --live: model (else OPS_AGENT_MODEL, Ollama, embedded)")
    red.add_argument("--modes", default="shipped", help="with --live: shipped,no-spotlight")
    red.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ..agents.ops_world import default_seed
    from ..base.inputs import id_list
    from ..redteam import (
        CorpusError,
        default_attacks,
        default_benign,
        default_held_out,
        load_attacks,
        load_benign,
    )

    wanted = id_list("--attacks", args.attacks, "attack id")
    try:
        seed = default_seed()
        corpora = [default_attacks(), default_held_out(), *map(Path, args.corpus or [])]
        attacks = load_attacks(corpora, seed)
        benign = load_benign(Path(args.benign) if args.benign else default_benign())
    except CorpusError as exc:
        raise OpsEvalError(EXIT_BAD_INPUT, str(exc)) from None
    if wanted is not None:
        unknown = sorted(set(wanted) - {a.id for a in attacks})
        if unknown:
            raise OpsEvalError(EXIT_BAD_INPUT, f"--attacks: no attack {', '.join(unknown)}")
        attacks = [a for a in attacks if a.id in wanted]
    if args.live:
        return _live(args, attacks, seed)
    import logging

    from ..base.model_logs import model_logs
    from ..redteam.suite import run_suite, summarise

    with model_logs(floor=logging.ERROR):
        result = run_suite(attacks, benign, seed=seed)
    for line in summarise(result):
        print(line)
    return result.exit_code  # 1 a breach or coverage drift, 3 an invalid run, 0 neither


def _live(args: argparse.Namespace, attacks: list[Any], seed: Any) -> int:
    """The corpus against the configured model: utility, utility under attack, attack rates."""
    from ..agents.project import ModelConfigError
    from ..base.exits import unwind_on_signals
    from ..base.model_logs import model_logs
    from ..base.progress import Progress
    from ..base.settings import current
    from ..models import ModelUnavailable, choose_model
    from ..redteam import MODES
    from ..redteam.live import run_live, summarise_live

    unwind_on_signals()
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    if not modes or set(modes) - set(MODES):
        raise OpsEvalError(EXIT_BAD_INPUT, f"--modes: choose from {', '.join(MODES)}")
    say = lambda line: print(line, file=sys.stderr, flush=True)  # noqa: E731
    try:
        with choose_model(args.model, say=say, log_dir=current().runs_dir) as choice:
            for line in choice.banner():
                print(line, flush=True)
            progress = Progress(len(attacks) * len(modes), "attack")

            def done(run: Any) -> None:
                state = run.error or ("attempted" if run.attempted else "ignored the injection")
                progress.update(f"{run.attack} [{run.mode}] {state}", failed=bool(run.error))

            try:
                with model_logs():
                    runs = run_live(attacks, choice.model, seed=seed, modes=modes, on_done=done)
            finally:
                progress.close()
    except ModelConfigError as exc:
        raise OpsEvalError(EXIT_BAD_INPUT, str(exc)) from None
    except ModelUnavailable as exc:
        raise OpsEvalError(EXIT_INFRA, f"model unavailable: {exc}") from None
    for line in summarise_live(runs, f"model {choice.name}"):
        print(line)
    if runs and all(r.error for r in runs):
        return EXIT_INFRA
    return EXIT_FAILED if any(r.succeeded for r in runs) else EXIT_OK
