"""`ops-eval run`: a live eval from end to end, each stage in its own package, none calling back up:

    validation.plan (read + validate the set once) -> playing (case x repeat on the real agent)
    -> scorers -> results (aggregates, the run record) -> outputs.report (the summary)

`execute` is what the command does. Input and model problems become OpsEvalError with their
exit code, never a traceback. A run stopped before its end (Ctrl-C, SIGTERM) still writes its
record, of the trials that finished, marked interrupted (exit 3): what finished is not thrown
away, and no reader takes it for a complete run.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:  # `ops-eval`'s parser imports this module: nothing heavy at start-up
    from ..results.records import RunRecord
    from ..running.options import RunOptions


def add_parser(subparsers: Any) -> None:
    run = subparsers.add_parser("run", help="live trajectory eval against a model")
    run.add_argument("--set", help="eval set file (default: evals/ops.evalset.json)")
    run.add_argument("--cases", help="comma-separated eval ids (default: all)")
    run.add_argument("--repeats", type=int, default=1, help="trials per case (pass^k)")
    run.add_argument("--concurrency", type=int, default=1, help="trials in parallel")
    run.add_argument("--model", help="model (else OPS_AGENT_MODEL, Ollama, or the embedded one)")
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
    from ..base.exits import unwind_on_signals
    from ..base.inputs import id_list, parse_run_group, parse_shard
    from ..running.options import RunOptions

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
    code, _, _ = execute(options)
    return code


def execute(
    options: RunOptions,
    *,
    chooser: Callable[..., Any] | None = None,
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> tuple[int, RunRecord, Path]:
    """Run the eval; returns (exit code, record, record path)."""
    import asyncio
    import time
    import uuid
    from contextlib import nullcontext
    from dataclasses import replace
    from datetime import UTC, datetime

    from ..agents.project import ModelConfigError
    from ..base.data_policy import holding
    from ..base.exits import EXIT_BAD_INPUT, EXIT_INFRA, OpsEvalError, hold_signals
    from ..base.inputs import check_writable, output_file
    from ..base.model_logs import model_logs
    from ..base.progress import Progress
    from ..base.settings import current
    from ..models import ModelUnavailable, choose_model
    from ..outputs.report import summary_lines
    from ..playing.spans import recording, spans_path
    from ..results.record_parts import ModelInfo, TrialRecord
    from ..results.records import write_record
    from ..running.judge import judge_use, judged
    from ..running.options import (
        capped_by_model,
        check_options,
        check_shard,
        data_policy,
        planned_trials,
        record_path,
    )
    from ..running.record import build_record, provenance_fields
    from ..running.trials import in_plan_order, play_trials
    from ..validation.plan import load_plan

    out, err = out or sys.stdout, err or sys.stderr
    check_options(options)
    if options.record is not None:
        check_writable(output_file("--record", options.record), "--record")
    plan = load_plan(options.set_path, options.cases)
    check_shard(plan, options)
    options = replace(options, minimal=data_policy(options, plan))
    minimal = options.minimal
    policy = "minimal" if minimal else "full"
    shown = minimal.label if minimal else str  # under minimal, what the run prints is labelled
    say = lambda line: print(shown(line), file=err, flush=True)  # noqa: E731
    for warning in plan.warnings:
        say(f"warning: {warning}")
    started = datetime.now(UTC)
    path = record_path(options, plan, started)
    check_writable(path)
    if minimal is None:
        check_writable(spans_path(path), "--output (its spans file)")
    settings = current()
    provenance = provenance_fields(plan)  # before anything plays (see its docstring)
    release: Callable[[], None] | None = None  # set once a stopped run holds further signals
    try:
        with (
            holding(policy),
            (chooser or choose_model)(
                options.model,
                say=say,
                log_dir=settings.runs_dir,
                record=options.record,
            ) as choice,
        ):
            for line in choice.banner():
                print(shown(line), file=out, flush=True)
            capped = capped_by_model(options, choice.parallel)
            if capped:
                print(f"note:  {capped}", file=out, flush=True)
                options = replace(options, concurrency=choice.parallel)
            n = len(planned_trials(plan, options))
            of = (
                f" (shard {options.shard[0]}/{options.shard[1]}: {n} of them)"
                if options.shard
                else ""
            )
            print(
                f"running {len(plan.cases)} case(s) x {options.repeats} repeat(s) = "
                f"{len(plan.cases) * options.repeats} trials{of} "
                f"from {plan.evalset.display}, concurrency {options.concurrency}",
                file=out,
                flush=True,
            )
            if minimal is not None:
                print(
                    f"data: minimal -- keyed hashes (key id {minimal.key.key_id}) and labels of "
                    f"at most {minimal.label_chars} characters; no spans file, no recording",
                    file=out,
                    flush=True,
                )
            progress = Progress(n, "trial", out=err)
            finished: list[TrialRecord] = []

            def done(t: TrialRecord) -> None:
                finished.append(t)
                why = t.error or (f"looped: {t.looped}" if t.looped else None)
                extra = f" ({why})" if why else ""
                line = f"{t.case_id} #{t.repeat} {t.status}{extra} in {t.seconds:.1f} s"
                progress.update(line, failed=t.status == "error")

            t0 = time.perf_counter()
            interrupted = None
            try:
                with (
                    judged(plan, say, out, settings.runs_dir),
                    model_logs(options.verbose, labels=minimal.label_chars if minimal else None),
                    recording() if minimal is None else nullcontext() as spans,
                ):
                    asyncio.run(play_trials(plan, choice.model, options, done))
            except KeyboardInterrupt:  # Ctrl-C, or SIGTERM (`exits.py`): keep what finished
                interrupted = "Ctrl-C or SIGTERM"
                release = hold_signals()  # until the record is written: a second one waits
            finally:
                progress.close()
            trials = in_plan_order(plan, options, finished)
            seconds = time.perf_counter() - t0
            info = ModelInfo(**choice.described())
    except BaseException as exc:
        if release is not None:
            release()
        if isinstance(exc, ModelConfigError):
            raise OpsEvalError(EXIT_BAD_INPUT, str(exc)) from None
        if isinstance(exc, ModelUnavailable):
            raise OpsEvalError(EXIT_INFRA, f"model unavailable: {exc}") from None
        raise
    try:
        with holding(policy):  # the writers below refuse text under minimal, as the run's did
            if interrupted is not None and len(trials) == n:
                interrupted = None  # stopped after the last trial finished: nothing was cut off
            record = build_record(
                plan,
                trials,
                options,
                provenance,
                interrupted,
                run_id=uuid.uuid4().hex[:12],
                started_at=started.isoformat(timespec="seconds"),
                seconds=seconds,
                model=info,
                judge=judge_use(plan),
            )
            if capped:
                record.notes.append(capped)
            if options.shard is not None:
                record.notes.append(
                    f"shard {options.shard[0]}/{options.shard[1]}: {len(trials)} of "
                    f"{len(plan.cases) * options.repeats} trials; its verdict is the shard's only, "
                    "`ops-eval merge` its shards for the run's"
                )
            used = record.judge
            if used is not None and used.budget_blocked:
                record.notes.append(
                    f"budget_blocked: {used.budget_blocked} judge call(s) were refused before "
                    f"they were made ({used.budget_problem or used.budget_source}); "
                    "their checks are errors, which fail their trials"
                )
            write_record(record, path)
            try:
                if spans is not None:  # a minimal-data run keeps none
                    spans.write(path, record.run_id)  # for `ops-eval mlflow --from-run`
            except OSError as exc:  # checked before the run; the record stands without it
                print(f"warning: {spans_path(path)}: cannot write ({exc.strerror})", file=err)
            for line in summary_lines(record):
                print(line, file=out)
            print(f"run record: {path}", file=out)
    finally:
        if release is not None:
            release()  # the record is written and said: Ctrl-C stops the command again
    return record.exit_code, record, path
