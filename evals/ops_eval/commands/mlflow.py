"""`ops-eval mlflow` (`mise run eval:mlflow`): an eval set played live into MLflow, or with
`--from-run RUN` a run record logged (`outputs.tracking.logged`: what is refused first, and the
exit codes: 0 READY, 1 FAILED, 2 bad input, 3 MLflow, the server or the model unavailable).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any, TextIO

from ..base import EXIT_INFRA, OpsEvalError, add_agent_option


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "mlflow",
        help="MLflow GenAI evaluation: every conversation with the deterministic scorers, "
        "traces, prompt and logged model (optional judge)",
    )
    p.add_argument("--from-run", metavar="RUN", help="log this run record (path or run id) "
                   "instead of calling the model")  # fmt: skip
    p.add_argument("--set", help="eval set file (default: evals/ops.evalset.json)")
    add_agent_option(p)
    p.add_argument("--cases", help="comma-separated eval ids (default: all)")
    p.add_argument("--repeats", type=int, default=None, help="conversations per case (default 1)")
    p.add_argument("--concurrency", type=int, default=None, help="conversations at once")
    p.add_argument("--model", help="model (else OPS_AGENT_MODEL, Ollama, or the embedded one)")
    p.add_argument("--output", metavar="PATH", help="run record path (default: runs/...)")
    p.add_argument("--timeout", type=float, default=None, help="seconds per conversation")
    p.add_argument("--user", choices=("scripted", "model"), default=None, help="who plays a "
                   "scenario's user: its scripted rules (default) or the model")  # fmt: skip
    p.add_argument(
        "--data",
        choices=("full", "minimal"),
        default=None,
        help="minimal is refused live (MLflow traces the text as it plays): run `ops-eval run "
        "--data minimal`, then log its record with --from-run",
    )
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from ..base import unwind_on_signals

    unwind_on_signals()
    try:
        return run_mlflow(args)
    except KeyboardInterrupt:
        raise OpsEvalError(
            EXIT_INFRA,
            "interrupted before the end; any MLflow run and logged model it had started are "
            "marked FAILED, and no run record was written",
        ) from None


def run_mlflow(
    args: argparse.Namespace,
    *,
    chooser: Callable[..., Any] | None = None,
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> int:
    """The command; `chooser` replaces model selection (deterministic test models)."""
    from ..judging import judge_config, judged
    from ..outputs.tracking import (
        live_options,
        log_live,
        log_record,
        masked,
        refuse_live_options,
        summary_lines,
        tracking_target,
    )

    out, err = out or sys.stdout, err or sys.stderr
    target = tracking_target()
    judge = judge_config()
    if args.from_run is not None:
        refuse_live_options(args)
    for line in target.lines():
        print(line, file=out, flush=True)
    if judge is not None:
        print(f"judge: {judge.model} at {masked(judge.base_url)} (evidence, not a gate)", file=out)
    if args.from_run is not None:
        done = log_record(args.from_run, target, judge, err)
        said = [f"logged run record {done.path} in {done.seconds:.1f} s"]
    else:
        done = log_live(live_options(args), target, judge, chooser, out, err, opener=judged)
        gate = "passed" if done.record and done.record.gate_passed else "failed"
        said = [f"run record: {done.path} (its own trajectory gate {gate}; `mise run eval:gate` "
                "compares it with its baseline)"]  # fmt: skip
    for line in [*summary_lines(done.evaluation), *said]:
        print(line, file=out)
    for line in target.lines():  # again at the end, where a long run's output stops
        print(line, file=out, flush=True)
    return done.exit_code
