"""A run logged to MLflow (`ops-eval mlflow`): a run record as it was written (`log_record`,
`--from-run`: no model is called), or an eval set played live with the run record `ops-eval
run` would write (`log_live`); each is one `mlflow.genai.evaluate` call whose verdict is the
exit code (`Logged.exit_code`: 0 READY, 1 FAILED, 3 when no trial had a verdict).

Everything that can be refused is refused before MLflow is installed or started: a record that
is partial, empty or minimal with a judge; a live set that does not load, minimal data live, an
output path inside the store.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from ...base.exits import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_INFRA, EXIT_OK, OpsEvalError
from .store import check_store, ensure_mlflow, evaluate_or_exit, reachable

if TYPE_CHECKING:
    from ...running.judge import Opener

LIVE_OPTIONS = (
    "set", "cases", "repeats", "concurrency", "model", "output", "timeout", "user", "data"
)  # fmt: skip


def refuse_live_options(args: Any) -> None:
    """`--from-run` logs a recorded run as it is: exit 2 when an option of a live run is given
    with it (`args`: the command's, with None for an option not given)."""
    given = [f"--{o}" for o in LIVE_OPTIONS if getattr(args, o) is not None]
    if given:
        raise OpsEvalError(
            EXIT_BAD_INPUT,
            f"--from-run logs a recorded run as it is: {', '.join(given)} cannot be given with it",
        )


@dataclass(frozen=True)
class Logged:
    """What one logging did: MLflow's evaluation, the trials it scored, the run record's path,
    and (live) the record written, (from a record) the seconds it took."""

    evaluation: Any
    trials: list[Any]
    path: Path
    record: Any = None
    seconds: float = 0.0

    @property
    def exit_code(self) -> int:
        from ...results.aggregation import no_verdict

        if no_verdict(self.trials):  # as for `ops-eval run`: no trial had a verdict
            return EXIT_INFRA
        return EXIT_OK if self.evaluation.ready else EXIT_FAILED


def _say(err: TextIO) -> Callable[[str], None]:
    return lambda line: print(line, file=err, flush=True)


def _scorers(book: Any, judge: Any) -> list[Any]:
    from .scorers import judge_scorer, registry_scorers

    return registry_scorers(book) + ([judge_scorer(judge, book)] if judge else [])


def _kept_spans(path: Path, record: Any, say: Callable[[str], None]) -> dict:
    """ADK's spans `ops-eval run` kept beside the record, by trial. Without them (an older
    record, a file that does not read, another run's) the traces are drawn from the record,
    and the command says why; so are the trials the file lacks."""
    from ...playing.spans import SpansError, read_spans, spans_path

    where = spans_path(path)
    if not where.exists():
        say(f"note: no {where.name} beside the record; the traces are drawn from the record")
        return {}
    try:
        kept = read_spans(where, record.run_id)
    except SpansError as exc:
        say(f"warning: {exc}; the traces are drawn from the run record instead")
        return {}
    lacking = [
        f"{t.case_id} #{t.repeat}" for t in record.trials if not kept.get((t.case_id, t.repeat))
    ]
    if lacking:
        shown = ", ".join(lacking[:5]) + (", ..." if len(lacking) > 5 else "")
        say(f"note: {where.name} has no spans of {len(lacking)} trial(s) ({shown}); "
            "theirs are drawn from the record")  # fmt: skip
    return kept


def _loggable(spec: str, judge: Any) -> tuple[Path, Any, Any]:
    """(path, record, lineage) of the run `spec` names; OpsEvalError (exit 2) for a record
    MLflow cannot log whole: minimal with a judge, instructions not this checkout's, no
    trials, or partial."""
    from ...base.settings import current
    from ...results.runs import load, partial, resolve_run
    from .lineage import of_record

    path = resolve_run(spec, current().runs_dir)
    record = load(path, "--from-run")
    if record.minimal and judge is not None:
        raise OpsEvalError(
            EXIT_BAD_INPUT,
            f"--from-run {path}: run {record.run_id} is a minimal-data run (keyed hashes and "
            "labels, no text), and MLflow's judge grades the answers' text: unset "
            "MLFLOW_JUDGE_MODEL to log it",
        )
    lineage = of_record(record)
    if not record.trials:
        raise OpsEvalError(EXIT_BAD_INPUT, f"--from-run {path}: the run has no trials to log")
    if why := partial(record):  # a logged model's READY or FAILED speaks for a whole run
        raise OpsEvalError(
            EXIT_BAD_INPUT,
            f"--from-run {path}: run {record.run_id}: {why}; only a whole run is logged",
        )
    return path, record, lineage


def log_record(spec: str, target: Any, judge: Any, err: TextIO) -> Logged:
    """The run record `spec` names (path or run id) logged as it is, its traces drawn from the
    spans kept beside it (or from the record); notes on `err`."""
    import time

    from ...base.data_policy import holding
    from ...playing.spans import spans_path
    from .replay import draw_trial
    from .rows import trial_row
    from .scorers import Book

    path, record, lineage = _loggable(spec, judge)
    reachable(target)
    ensure_mlflow(_say(err))
    check_store(target)
    book = Book(record.trials)
    if record.minimal:  # it kept no spans: its traces are its hashes and labels
        _say(err)("note: a minimal-data run: the traces are drawn from its hashes and labels")
        spans: dict = {}
    else:
        spans = _kept_spans(path, record, _say(err))
    spans_file = spans_path(path).name

    def predict(case_id: str, repeat: int, turns: list[str]) -> dict[str, Any]:
        trial = book.get((case_id, repeat))
        assert trial is not None  # every row is one of the record's trials
        return draw_trial(trial, record.run_id, spans.get((case_id, repeat)), spans_file)

    started = time.perf_counter()
    with holding("minimal" if record.minimal else "full"):
        evaluation = evaluate_or_exit(
            target,
            lineage=lineage,
            rows=[trial_row(t) for t in record.trials],
            predict=predict,
            scorers=_scorers(book, judge),
            run_name=f"run {record.run_id}",
            params={
                "ops_run_id": record.run_id,
                "source": "run record",
                "record": str(path),
                "data": "minimal" if record.minimal else "full",
            },
            after=lambda: [path],
        )
    return Logged(evaluation, record.trials, path, seconds=time.perf_counter() - started)


def _live_plan(options: Any, target: Any, say: Callable[[str], None]) -> tuple[Any, Path, Any]:
    """(plan, record path, start time) of a live MLflow run; OpsEvalError (exit 2) for a seed
    that does not load, minimal data (MLflow traces the text), or an output in the store."""
    from datetime import UTC, datetime

    from opskit.textfiles import resolved

    from ...agents.ops_world import SeedError
    from ...base.data_policy import TextRefused
    from ...base.inputs import check_writable
    from ...running.options import data_policy, record_path
    from ...validation.plan import load_plan

    try:
        plan = load_plan(options.set_path, options.cases)
    except SeedError as exc:
        raise OpsEvalError(EXIT_BAD_INPUT, str(exc)) from None
    if data_policy(options, plan) is not None:
        raise TextRefused(
            "ops-eval mlflow (live)",
            "MLflow traces every prompt, answer and argument as the conversation plays; run "
            "`ops-eval run --data minimal`, then `ops-eval mlflow --from-run RUN` logs its hashes "
            "and labels",
        )
    for warning in plan.warnings:
        say(f"warning: {warning}")
    started = datetime.now(UTC)
    path = record_path(options, plan, started)
    if target.sqlite_file is not None and resolved(path) == resolved(target.sqlite_file):
        raise OpsEvalError(EXIT_BAD_INPUT, f"--output {path} is the MLflow store itself")
    if target.artifacts is not None and resolved(path).is_relative_to(resolved(target.artifacts)):
        raise OpsEvalError(EXIT_BAD_INPUT, f"--output {path} is inside the store's artifacts")
    check_writable(path)
    return plan, path, started


def log_live(
    options: Any,
    target: Any,
    judge: Any,
    chooser: Callable[..., Any] | None,
    out: TextIO,
    err: TextIO,
    opener: Opener | None = None,
) -> Logged:
    """Every case x repeat played on the chosen model as one MLflow row, and the run record
    `ops-eval run` would write written too; the model's banner on `out`, progress on `err`; the
    cases' `llm_judge` checks judged by the judge `opener` opens (`ops-eval mlflow` hands
    `judging.run.judged`; none handed, they are skipped, saying so)."""
    import uuid

    from ...agents.project import ModelConfigError
    from ...base.model_logs import model_logs
    from ...base.settings import current
    from ...models import ModelUnavailable, choose_model
    from ...results.records import write_record
    from ...running.judge import unjudged
    from .lineage import of_fields
    from .live import LivePlay

    say = _say(err)
    plan, path, started = _live_plan(options, target, say)
    reachable(target)
    ensure_mlflow(say)
    check_store(target)
    run_id = uuid.uuid4().hex[:12]
    written: list[Any] = []  # the run record, once written
    try:
        with (
            (chooser or choose_model)(options.model, say=say, log_dir=current().runs_dir) as choice,
            (opener or unjudged)(plan, say, out, current().runs_dir),  # llm_judge checks
        ):
            play = LivePlay(plan, options, choice, say, started=started)
            for line in choice.banner():
                print(line, file=out, flush=True)
            workers = min(options.concurrency, choice.parallel or options.concurrency)

            def write() -> list[Path]:
                written.append(play.record(run_id, workers))
                write_record(written[0], path)
                return [path]

            print(
                f"playing {len(play.keys)} conversation(s) from {plan.evalset.display} into "
                f"MLflow, {workers} at a time",
                file=out,
                flush=True,
            )
            try:
                with model_logs():
                    evaluation = evaluate_or_exit(
                        target,
                        lineage=of_fields(
                            play.provenance,
                            choice.name,
                            run_id,
                            [c.eval_id for c in plan.cases],
                            options.repeats,
                        ),
                        rows=play.rows(),
                        predict=play.predict,
                        scorers=_scorers(play.book, judge),
                        workers=workers,
                        run_name=f"run {run_id}",
                        params={"ops_run_id": run_id, "source": "live", "agent_model": choice.name},
                        after=write,
                    )
            finally:
                play.loop.close()
    except ModelConfigError as exc:
        raise OpsEvalError(EXIT_BAD_INPUT, str(exc)) from None
    except ModelUnavailable as exc:
        raise OpsEvalError(EXIT_INFRA, f"model unavailable: {exc}") from None
    return Logged(evaluation, play.book.trials(), path, written[0] if written else None)
