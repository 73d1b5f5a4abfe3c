"""`ops-eval run`: a live eval from end to end, each stage in its own package, none calling back up:

    validation.plan (read + validate the set once) -> playing (case x repeat on the real agent)
    -> scorers -> results (aggregates, the run record) -> outputs.report (the summary)

`execute` is what the command does. Input and model problems become OpsEvalError with their
exit code, never a traceback. A run stopped before its end (Ctrl-C, SIGTERM) still writes its
record, of the trials that finished, marked interrupted (exit 3): what finished is not thrown
away, and no reader takes it for a complete run.
"""

from __future__ import annotations

import asyncio
import sys
import time
import uuid
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from ..base.exits import EXIT_BAD_INPUT, EXIT_INFRA, OpsEvalError, hold_signals
from ..base.inputs import check_writable, output_file
from ..base.settings import current
from ..results.record_parts import ModelInfo, TrialRecord
from ..results.records import RunRecord, write_record
from ..running.judge import judge_use, judged
from ..running.options import (
    RunOptions,
    capped_by_model,
    check_options,
    check_shard,
    planned_trials,
    record_path,
)
from ..running.record import build_record
from ..running.trials import in_plan_order, play_trials
from ..validation.plan import load_plan


def execute(
    options: RunOptions,
    *,
    chooser: Callable[..., Any] | None = None,
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> tuple[int, RunRecord, Path]:
    """Run the eval; returns (exit code, record, record path)."""
    from ops_copilot.model import ModelConfigError

    from ..base.model_logs import model_logs
    from ..base.progress import Progress
    from ..models import ModelUnavailable, choose_model
    from ..outputs.report import summary_lines
    from ..playing.spans import recording, spans_path

    out, err = out or sys.stdout, err or sys.stderr
    check_options(options)
    if options.record is not None:
        check_writable(output_file("--record", options.record), "--record")
    plan = load_plan(options.set_path, options.cases)
    check_shard(plan, options)
    for warning in plan.warnings:
        print(f"warning: {warning}", file=err, flush=True)
    started = datetime.now(UTC)
    path = record_path(options, plan, started)
    check_writable(path)
    check_writable(spans_path(path), "--output (its spans file)")
    say = lambda line: print(line, file=err, flush=True)  # noqa: E731
    settings = current()
    release: Callable[[], None] | None = None  # set once a stopped run holds further signals
    try:
        with (chooser or choose_model)(
            options.model,
            say=say,
            log_dir=settings.runs_dir,
            record=options.record,
        ) as choice:
            for line in choice.banner():
                print(line, file=out, flush=True)
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
                    model_logs(options.verbose),
                    recording() as spans,
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
        if interrupted is not None and len(trials) == n:
            interrupted = None  # stopped after the last trial finished: nothing was cut off
        record = build_record(
            plan,
            trials,
            options,
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
        if record.judge is not None and record.judge.budget_blocked:
            record.notes.append(
                f"budget_blocked: {record.judge.budget_blocked} judge call(s) were refused before "
                f"they were made ({record.judge.budget_problem or record.judge.budget_source}); "
                "their checks are errors, which fail their trials"
            )
        write_record(record, path)
        try:
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
