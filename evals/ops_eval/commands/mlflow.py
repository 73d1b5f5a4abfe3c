"""`ops-eval mlflow` (`mise run eval:mlflow`); its UI is `ops-eval mlflow-ui` (`mlflow_ui`).

Live, every case x repeat of the eval set is played on the chosen model as one MLflow row, and
the run record `ops-eval run` would write is written too, so one model run feeds the gate, the
report and MLflow. With `--from-run RUN` an existing run record is logged instead and no model
is called: the path the scheduled workflow takes after `ops-eval run`.

Configuration is settled before anything is imported, installed or started: the tracking URI,
the judge trio, `--from-run` against the live options, an unreachable tracking server. MLflow
itself is an optional dependency group, installed here on first use.

Exit codes: 0 the logged model READY (the course's four metrics all 1.0, every other gating
scorer clean); 1 FAILED; 2 bad input or configuration; 3 MLflow, the tracking server or the model
unavailable, or every conversation errored.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from ..base.exits import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_INFRA, EXIT_OK, OpsEvalError
from ..outputs.tracking.store import check_store, ensure_mlflow, evaluate_or_exit, reachable

LIVE_OPTIONS = (
    "set", "cases", "repeats", "concurrency", "model", "output", "timeout", "user", "data"
)  # fmt: skip


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "mlflow",
        help="MLflow GenAI evaluation: every conversation with the deterministic scorers, "
        "traces, prompt and logged model (optional judge)",
    )
    p.add_argument("--from-run", metavar="RUN", help="log this run record (path or run id) "
                   "instead of calling the model")  # fmt: skip
    p.add_argument("--set", help="eval set file (default: evals/ops.evalset.json)")
    p.add_argument("--cases", help="comma-separated eval ids (default: all)")
    p.add_argument("--repeats", type=int, default=None, help="conversations per case (default 1)")
    p.add_argument("--concurrency", type=int, default=None, help="conversations at once")
    p.add_argument("--model", help="model (else OPS_AGENT_MODEL, Ollama, or the embedded one)")
    p.add_argument("--output", metavar="PATH", help="run record path (default: runs/...)")
    p.add_argument("--timeout", type=float, default=None, help="seconds per conversation")
    p.add_argument(
        "--user",
        choices=("scripted", "model"),
        default=None,
        help="who plays a scenario's user: its scripted rules (default) or the model",
    )
    p.add_argument(
        "--data",
        choices=("full", "minimal"),
        default=None,
        help="minimal is refused live (MLflow traces the text as it plays): run `ops-eval run "
        "--data minimal`, then log its record with --from-run",
    )
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from ..base.exits import unwind_on_signals

    unwind_on_signals()
    try:
        return run_mlflow(args)
    except KeyboardInterrupt:
        raise OpsEvalError(
            EXIT_INFRA,
            "interrupted before the end; any MLflow run and logged model it had started are "
            "marked FAILED, and no run record was written",
        ) from None


def _say(err: TextIO) -> Callable[[str], None]:
    return lambda line: print(line, file=err, flush=True)


def run_mlflow(
    args: argparse.Namespace,
    *,
    chooser: Callable[..., Any] | None = None,
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> int:
    """The command; `chooser` replaces model selection (deterministic test models)."""
    from ..outputs.tracking.config import judge_config, masked, tracking_target

    out, err = out or sys.stdout, err or sys.stderr
    target = tracking_target()
    judge = judge_config()
    if args.from_run is not None:
        given = [f"--{o}" for o in LIVE_OPTIONS if getattr(args, o) is not None]
        if given:
            raise OpsEvalError(
                EXIT_BAD_INPUT,
                f"--from-run logs a recorded run as it is: {', '.join(given)} cannot be given "
                "with it",
            )
    for line in target.lines():
        print(line, file=out, flush=True)
    if judge is not None:
        shown = masked(judge.base_url)
        print(f"judge: {judge.model} at {shown} (evidence, not a gate)", file=out)
    if args.from_run is not None:
        code = _from_run(args.from_run, target, judge, out, err)
    else:
        code = _live(args, target, judge, chooser, out, err)
    for line in target.lines():  # again at the end, where a long run's output stops
        print(line, file=out, flush=True)
    return code


def _exit_code(evaluation: Any, trials: list[Any]) -> int:
    from ..results.aggregation import no_verdict

    if no_verdict(trials):  # as for `ops-eval run`: no trial had a verdict
        return EXIT_INFRA
    return EXIT_OK if evaluation.ready else EXIT_FAILED


def _scorers(book: Any, judge: Any) -> list[Any]:
    from ..outputs.tracking.scorers import judge_scorer, registry_scorers

    return registry_scorers(book) + ([judge_scorer(judge, book)] if judge else [])


def _kept_spans(path: Path, record: Any, say: Callable[[str], None]) -> dict:
    """ADK's spans `ops-eval run` kept beside the record, by trial. Without them (an older
    record, a file that does not read, another run's) the traces are drawn from the record,
    and the command says why; so are the trials the file lacks."""
    from ..playing.spans import SpansError, read_spans, spans_path

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


def _from_run(spec: str, target: Any, judge: Any, out: TextIO, err: TextIO) -> int:
    import time

    from ..base.data_policy import holding
    from ..base.settings import current
    from ..outputs.tracking.evaluation import summary_lines
    from ..outputs.tracking.lineage import of_record
    from ..outputs.tracking.replay import draw_trial
    from ..outputs.tracking.rows import trial_row
    from ..outputs.tracking.scorers import Book
    from ..playing.spans import spans_path
    from ..results.runs import load, partial, resolve_run

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
    for line in summary_lines(evaluation):
        print(line, file=out)
    print(f"logged run record {path} in {time.perf_counter() - started:.1f} s", file=out)
    return _exit_code(evaluation, record.trials)


def _live(
    args: argparse.Namespace,
    target: Any,
    judge: Any,
    chooser: Callable[..., Any] | None,
    out: TextIO,
    err: TextIO,
) -> int:
    import uuid
    from datetime import UTC, datetime

    from ..agents.ops_world import SeedError
    from ..agents.project import ModelConfigError
    from ..base.data_policy import TextRefused
    from ..base.inputs import check_writable
    from ..base.model_logs import model_logs
    from ..base.settings import current
    from ..models import ModelUnavailable, choose_model
    from ..outputs.tracking.evaluation import summary_lines
    from ..outputs.tracking.lineage import of_fields
    from ..outputs.tracking.live import LivePlay, live_options
    from ..results.records import write_record
    from ..running.judge import judged
    from ..running.options import data_policy, record_path
    from ..validation.plan import load_plan

    options = live_options(args)
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
    say = _say(err)
    for warning in plan.warnings:
        say(f"warning: {warning}")
    started = datetime.now(UTC)
    path = record_path(options, plan, started)
    from opskit.textfiles import resolved  # here: the CLI loads this module to parse

    if target.sqlite_file is not None and resolved(path) == resolved(target.sqlite_file):
        raise OpsEvalError(EXIT_BAD_INPUT, f"--output {path} is the MLflow store itself")
    if target.artifacts is not None and resolved(path).is_relative_to(resolved(target.artifacts)):
        raise OpsEvalError(EXIT_BAD_INPUT, f"--output {path} is inside the store's artifacts")
    check_writable(path)
    reachable(target)
    ensure_mlflow(say)
    check_store(target)
    run_id = uuid.uuid4().hex[:12]
    written: list[Any] = []  # the run record, once written
    try:
        with (
            (chooser or choose_model)(options.model, say=say, log_dir=current().runs_dir) as choice,
            judged(plan, say, out, current().runs_dir),  # for the cases' llm_judge checks
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
    for line in summary_lines(evaluation):
        print(line, file=out)
    gate = "passed" if written and written[0].gate_passed else "failed"
    print(f"run record: {path} (its own trajectory gate {gate}; `mise run eval:gate` compares "
          "it with its baseline)", file=out)  # fmt: skip
    return _exit_code(evaluation, play.book.trials())
