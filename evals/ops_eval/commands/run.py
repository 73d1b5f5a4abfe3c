"""`ops-eval run`: a live eval from end to end (`running.execute`: its stages, its exit codes, a
run stopped before its end), then the record's summary (`outputs.report`)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ..base import add_agent_option


def add_parser(subparsers: Any) -> None:
    run = subparsers.add_parser("run", help="live trajectory eval against a model")
    run.add_argument("--set", help="eval set file (default: evals/ops.evalset.json)")
    run.add_argument("--cases", help="comma-separated eval ids (default: all)")
    run.add_argument("--repeats", type=int, default=1, help="trials per case (pass^k)")
    run.add_argument("--concurrency", type=int, default=1, help="trials in parallel")
    run.add_argument("--model", help="model (else OPS_AGENT_MODEL, Ollama, or the embedded one)")
    add_agent_option(run)
    run.add_argument("--record", metavar="FILE", help="record every model request/response")
    run.add_argument("--output", metavar="PATH", help="run record path (default: runs/...)")
    run.add_argument("--timeout", type=float, default=600.0, help="seconds per trial")
    run.add_argument(
        "--user",
        choices=("scripted", "model"),
        default="scripted",
        help="who plays the user of a conversation scenario: its scripted rules (default), or "
        "the run's model with the scenario's plan and persona",
    )
    run.add_argument(
        "--data",
        choices=("full", "minimal"),
        default=None,
        help="what the run keeps: full text (default), or minimal -- keyed hashes "
        "(OPS_EVAL_DATA_KEY) and scrubbed labels, no spans, no recording (default: as gate.yaml "
        "says for the set)",
    )
    run.add_argument(
        "--verbose", action="store_true", help="full tracebacks of model errors (default: one line)"
    )
    run.add_argument(
        "--shard", metavar="I/N", help="run only shard I of N of the case x repeat trials"
    )
    run.add_argument(
        "--run-group",
        metavar="NAME",
        help="with --shard: a name every shard of one run is given (in CI, the workflow run's "
        "id); merge refuses shards of different groups",
    )
    run.set_defaults(handler=run_command)


def run_command(args: argparse.Namespace) -> int:
    from ..base import id_list, parse_run_group, parse_shard, unwind_on_signals
    from ..judging import execute
    from ..mutation import mutation_line
    from ..outputs.report import run_summary
    from ..running import RunOptions

    unwind_on_signals()
    options = RunOptions(
        shard=parse_shard("--shard", args.shard) if args.shard is not None else None,
        run_group=parse_run_group(args.run_group, args.shard),
        cases=id_list("--cases", args.cases),
        repeats=args.repeats,
        concurrency=args.concurrency,
        model=args.model,
        record=Path(args.record) if args.record else None,
        output=Path(args.output) if args.output else None,
        timeout_s=args.timeout,
        verbose=args.verbose,
        users=args.user,
        data=args.data,
    )
    if args.set:
        options.set_path = Path(args.set)
    code, _, _ = execute(options, summary=lambda r, p: run_summary(r, p, mutation_line))
    return code
