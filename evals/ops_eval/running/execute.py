"""A live eval from end to end, each stage in its own package, none calling back up:

    validation.plan (read + validate the set once) -> playing (case x repeat on the real agent)
    -> scorers -> results (aggregates, the run record)

`execute` is what `ops-eval run` does (the command adds the summary printed at the end,
`summary`: the reports live above this layer); `ops-eval mutate --live` runs each arm with it.
Input and model problems become OpsEvalError with their exit code, never a traceback. A run
stopped before its end (Ctrl-C, SIGTERM) still writes its record, of the trials that finished,
marked interrupted (exit 3): what finished is not thrown away, and no reader takes it for a
complete run.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from .options import RunOptions

if TYPE_CHECKING:
    from ..core.plan import Plan
    from ..results.record_parts import ModelInfo, TrialRecord
    from ..results.records import RunRecord
    from .judge import Opener

Summary = Callable[["RunRecord", Path], Iterable[str]]  # the record, and where it was written


@dataclass
class _Run:
    """What a run settled before anything plays, and what it played."""

    options: RunOptions
    plan: Plan
    path: Path
    started: datetime
    provenance: dict[str, Any]
    out: TextIO
    err: TextIO
    release: Callable[[], None] | None = None  # set once a stopped run holds further signals
    trials: list[TrialRecord] = field(default_factory=list)
    planned: int = 0
    seconds: float = 0.0
    info: ModelInfo | None = None
    capped: str | None = None
    interrupted: str | None = None
    spans: Any = None
    opener: Opener | None = None  # opens the run's judge (`running.judge`)

    @property
    def policy(self) -> str:
        return "minimal" if self.options.minimal else "full"

    def shown(self, line: str) -> str:
        return _shown(self.options, line)

    def say(self, line: str) -> None:
        print(self.shown(line), file=self.err, flush=True)

    def tell(self, line: str) -> None:
        print(line, file=self.out, flush=True)


def execute(
    options: RunOptions,
    *,
    chooser: Callable[..., Any] | None = None,
    out: TextIO | None = None,
    err: TextIO | None = None,
    summary: Summary | None = None,
    judge: Opener | None = None,
) -> tuple[int, RunRecord, Path]:
    """Run the eval; returns (exit code, record, record path). Progress goes to `err`, the
    model's banner and the run's plan to `out`, then `summary(record, path)`'s lines (which
    name the record), or, with no summary, the record's path. `judge` opens the run's judge
    (`judging.run.judged`, which `ops_eval.execute` hands); none handed, each `llm_judge`
    check is skipped, saying so."""
    run = _prepared(options, out or sys.stdout, err or sys.stderr)
    run.opener = judge
    try:
        _play(run, chooser)
    except BaseException as exc:
        if run.release is not None:
            run.release()
        if (said := _infrastructure(exc)) is exc:
            raise
        raise said from None
    try:
        return _written(run, summary)
    finally:
        if run.release is not None:
            run.release()  # the record is written and said: Ctrl-C stops the command again


def _shown(options: RunOptions, line: str) -> str:
    """Under minimal data, what the run prints is labelled."""
    return options.minimal.label(line) if options.minimal else line


def _infrastructure(exc: BaseException) -> BaseException:
    """A model problem as the OpsEvalError it means (exit 2 or 3); anything else as it is."""
    from ..agents.project import ModelConfigError
    from ..base.exits import EXIT_BAD_INPUT, EXIT_INFRA, OpsEvalError
    from ..models import ModelUnavailable

    if isinstance(exc, ModelConfigError):
        return OpsEvalError(EXIT_BAD_INPUT, str(exc))
    if isinstance(exc, ModelUnavailable):
        return OpsEvalError(EXIT_INFRA, f"model unavailable: {exc}")
    return exc


def _prepared(options: RunOptions, out: TextIO, err: TextIO) -> _Run:
    """Every check that needs no model, in order: options, the set, the shard, the data
    policy, the record's path (and its spans file's); what the run is of, by hash."""
    from datetime import UTC

    from ..base.inputs import check_writable, output_file
    from ..playing.spans import spans_path
    from ..validation.plan import load_plan
    from .options import check_options, check_shard, data_policy, record_path
    from .record import provenance_fields

    check_options(options)
    if options.record is not None:
        check_writable(output_file("--record", options.record), "--record")
    plan = load_plan(options.set_path, options.cases)
    check_shard(plan, options)
    options = replace(options, minimal=data_policy(options, plan))
    for warning in plan.warnings:
        print(_shown(options, f"warning: {warning}"), file=err, flush=True)
    started = datetime.now(UTC)
    path = record_path(options, plan, started)
    check_writable(path)
    if options.minimal is None:
        check_writable(spans_path(path), "--output (its spans file)")
    provenance = provenance_fields(plan)  # before anything plays (see its docstring)
    return _Run(options, plan, path, started, provenance, out, err)


def _play(run: _Run, chooser: Callable[..., Any] | None) -> None:
    """The model chosen, its banner and the run's plan said, every trial played into `run`."""
    import time

    from ..base.data_policy import holding
    from ..base.settings import current
    from ..models import choose_model
    from ..results.record_parts import ModelInfo
    from .options import capped_by_model

    options = run.options
    log_dir = current().runs_dir
    with (
        holding(run.policy),
        (chooser or choose_model)(
            options.model, say=run.say, log_dir=log_dir, record=options.record
        ) as choice,
    ):
        for line in choice.banner():
            run.tell(run.shown(line))
        run.capped = capped_by_model(options, choice.parallel)
        if run.capped:
            run.tell(f"note:  {run.capped}")
            run.options = options = replace(options, concurrency=choice.parallel)
        _say_plan(run)
        t0 = time.perf_counter()
        _trials(run, choice.model, log_dir)
        run.seconds = time.perf_counter() - t0
        run.info = ModelInfo(**choice.described())


def _say_plan(run: _Run) -> None:
    from .options import planned_trials

    options, plan = run.options, run.plan
    run.planned = n = len(planned_trials(plan, options))
    of = f" (shard {options.shard[0]}/{options.shard[1]}: {n} of them)" if options.shard else ""
    run.tell(
        f"running {len(plan.cases)} case(s) x {options.repeats} repeat(s) = "
        f"{len(plan.cases) * options.repeats} trials{of} "
        f"from {plan.evalset.display}, concurrency {options.concurrency}"
    )
    if (minimal := options.minimal) is not None:
        run.tell(
            f"data: minimal -- keyed hashes (key id {minimal.key.key_id}) and labels of "
            f"at most {minimal.label_chars} characters; no spans file, no recording"
        )


def _trials(run: _Run, model: Any, log_dir: Path) -> None:
    """Every planned trial played, a progress line each, and lines from a trial silent a while
    (`heartbeat`: above a terminal's bar, not through it); a stop (Ctrl-C, SIGTERM) keeps what
    finished and holds further signals until the record is written."""
    import asyncio
    from contextlib import nullcontext

    from ..base.exits import hold_signals
    from ..base.model_logs import model_logs
    from ..base.progress import Progress
    from ..playing.spans import recording
    from .heartbeat import INDENT
    from .judge import unjudged
    from .trials import in_plan_order, play_trials

    options, minimal = run.options, run.options.minimal
    progress = Progress(run.planned, "trial", out=run.err)
    finished: list[TrialRecord] = []

    def done(t: TrialRecord) -> None:
        finished.append(t)
        why = t.error or (f"looped: {t.looped}" if t.looped else None)
        extra = f" ({why})" if why else ""
        line = f"{t.case_id} #{t.repeat} {t.status}{extra} in {t.seconds:.1f} s"
        progress.update(line, failed=t.status == "error")

    def beat(line: str) -> None:
        shown = INDENT + run.shown(line)
        if progress.bar is not None:
            progress.bar.write(shown, file=run.err)
        else:
            print(shown, file=run.err, flush=True)

    try:
        with (
            (run.opener or unjudged)(run.plan, run.say, run.out, log_dir),
            model_logs(options.verbose, labels=minimal.label_chars if minimal else None),
            recording() if minimal is None else nullcontext() as spans,
        ):
            run.spans = spans
            asyncio.run(play_trials(run.plan, model, options, done, say=beat))
    except KeyboardInterrupt:  # Ctrl-C, or SIGTERM (`exits.py`): keep what finished
        run.interrupted = "Ctrl-C or SIGTERM"
        run.release = hold_signals()  # until the record is written: a second one waits
    finally:
        progress.close()
    run.trials = in_plan_order(run.plan, options, finished)


def _written(run: _Run, summary: Summary | None) -> tuple[int, RunRecord, Path]:
    """The record built, noted, written (with its spans file), and said."""
    import uuid

    from ..base.data_policy import holding
    from ..playing.spans import spans_path
    from ..results.records import write_record
    from .judge import judge_use
    from .record import build_record

    with holding(run.policy):  # the writers below refuse text under minimal, as the run's did
        if run.interrupted is not None and len(run.trials) == run.planned:
            run.interrupted = None  # stopped after the last trial finished: nothing was cut off
        record = build_record(
            run.plan,
            run.trials,
            run.options,
            run.provenance,
            run.interrupted,
            run_id=uuid.uuid4().hex[:12],
            started_at=run.started.isoformat(timespec="seconds"),
            seconds=run.seconds,
            model=run.info,
            judge=judge_use(run.plan),
        )
        record.notes += _notes(run, record)
        write_record(record, run.path)
        try:
            if run.spans is not None:  # a minimal-data run keeps none
                run.spans.write(run.path, record.run_id)  # for `ops-eval mlflow --from-run`
        except OSError as exc:  # checked before the run; the record stands without it
            print(f"warning: {spans_path(run.path)}: cannot write ({exc.strerror})", file=run.err)
        for line in summary(record, run.path) if summary else [f"run record: {run.path}"]:
            print(line, file=run.out)
    return record.exit_code, record, run.path


def _notes(run: _Run, record: RunRecord) -> list[str]:
    """What a reader of the record must know: a concurrency the model capped, a shard's
    slice, judge calls the budget refused."""
    options, plan = run.options, run.plan
    notes = [run.capped] if run.capped else []
    if options.shard is not None:
        notes.append(
            f"shard {options.shard[0]}/{options.shard[1]}: {len(run.trials)} of "
            f"{len(plan.cases) * options.repeats} trials; its verdict is the shard's only, "
            "`ops-eval merge` its shards for the run's"
        )
    used = record.judge
    if used is not None and used.budget_blocked:
        notes.append(
            f"budget_blocked: {used.budget_blocked} judge call(s) were refused before "
            f"they were made ({used.budget_problem or used.budget_source}); "
            "their checks are errors, which fail their trials"
        )
    return notes
