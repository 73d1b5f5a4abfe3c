"""A live eval from end to end, each stage in its own module, none calling back up:

    plan (read + validate the set once) -> play (case x repeat on the real agent) -> scorers
    -> aggregation (rates, pass^k, gate) -> records (the run record) -> report (the summary)

`execute` is what `ops-eval run` does. Input and model problems become OpsEvalError with their
exit code, never a traceback. A run stopped before its end (Ctrl-C, SIGTERM) still writes its
record, of the trials that finished, marked interrupted (exit 3): what finished is not thrown
away, and no reader takes it for a complete run.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from ..base.exits import EXIT_BAD_INPUT, EXIT_INFRA, OpsEvalError, hold_signals
from ..base.inputs import (
    MAX_CONCURRENCY,
    MAX_REPEATS,
    MAX_SHARDS,
    count,
    output_file,
    trial_timeout,
)
from ..base.settings import current
from ..core.evalset import Case
from ..core.plan import Plan, load_plan
from ..results.aggregation import aggregate, record_fields
from ..results.records import (
    Interrupted,
    ModelInfo,
    RunRecord,
    ShardInfo,
    TrialRecord,
    write_record,
)

if TYPE_CHECKING:
    from ..core.calls import TrialView

__all__ = ["RunOptions", "execute", "scored_trial"]


def _default_set() -> Path:
    return current().evals_dir / "ops.evalset.json"


@dataclass
class RunOptions:
    set_path: Path = field(default_factory=_default_set)
    cases: list[str] | None = None
    repeats: int = 1
    concurrency: int = 1
    model: str | None = None
    record: Path | None = None
    output: Path | None = None
    timeout_s: float = 600.0
    verbose: bool = False
    """Let ADK and LiteLLM log each model error's traceback (default: one line per trial)."""
    shard: tuple[int, int] | None = None
    """(I, N): run only shard I of N of the case x repeat trials (`shards.shard_slice`)."""
    run_group: str | None = None
    """With `shard`: the name all shards of one run share, which `ops-eval merge` compares."""


def scored_trial(plan: Plan, view: TrialView) -> TrialRecord:
    """A played trial, scored by the registry, as the run record keeps it. A scorer that
    crashes leaves the trial without a verdict (an error), but what was played is kept. A
    trial fails when any score fails or errs: an `error` score (a scorer that applies but
    reached no verdict) fails closed, never passes."""
    from ..scorers import ScorerCrashed, score_trial

    try:
        scores = score_trial(view, plan)
    except ScorerCrashed as exc:
        view.error, scores = str(exc), {}
    meta = view.case.meta
    if view.error:
        status = "error"
    else:
        failing = ("fail", "error")
        status = "passed" if all(s.outcome not in failing for s in scores.values()) else "failed"
    return TrialRecord(
        case_id=view.case.eval_id,
        category=meta.category if meta else "?",
        repeat=view.repeat,
        status=status,
        error=view.error,
        looped=view.looped,
        turns=view.turns,  # as far as the trial got
        scores=scores,
        seconds=view.seconds,
        state_after=view.after.model_dump() if view.after else {},
    )


async def _trial(
    plan: Plan, case: Case, repeat: int, model: Any, timeout_s: float, judges: Executor | None
) -> TrialRecord:
    from ..playing.play import play_trial
    from ..playing.spans import trial_span

    with trial_span(case.eval_id, repeat):  # ADK's spans of the trial nest under it
        view = await play_trial(plan, case, repeat, model, timeout_s)
    if judges is None:
        return scored_trial(plan, view)
    # A judge call blocks for seconds: scored off the loop, other trials keep playing.
    return await asyncio.get_running_loop().run_in_executor(judges, scored_trial, plan, view)


def judging(plan: Plan) -> bool:
    """Whether the run has a judge that will be called (not none, not a NoJudge)."""
    from ..models.judge import Judge

    return isinstance(plan.judge, Judge)


async def _trials(
    plan: Plan, model: Any, options: RunOptions, on_done: Callable[[TrialRecord], None]
) -> None:
    """Play every planned trial, `options.concurrency` at a time; each finished trial goes to
    `on_done` as it finishes, so a run cut short still has them."""
    semaphore = asyncio.Semaphore(max(1, options.concurrency))
    # Judged trials are scored in threads of their own, not asyncio's default executor: a run
    # stopped by Ctrl-C does not wait for a judge call in flight (up to its timeout) before it
    # writes what finished.
    judges = ThreadPoolExecutor(max(1, options.concurrency)) if judging(plan) else None

    async def one(case: Case, repeat: int) -> None:
        async with semaphore:
            trial = await _trial(plan, case, repeat, model, options.timeout_s, judges)
        on_done(trial)

    by_id = {case.eval_id: case for case in plan.cases}
    try:
        await asyncio.gather(*(one(by_id[case], r) for case, r in planned_trials(plan, options)))
    finally:
        if judges is not None:
            judges.shutdown(wait=False, cancel_futures=True)


def in_plan_order(plan: Plan, options: RunOptions, trials: list[TrialRecord]) -> list[TrialRecord]:
    """The finished trials in the order they were planned (they finish in any order)."""
    order = {key: i for i, key in enumerate(planned_trials(plan, options))}
    return sorted(trials, key=lambda t: order[(t.case_id, t.repeat)])


def planned_trials(plan: Plan, options: RunOptions) -> list[tuple[str, int]]:
    """(case id, repeat) of every trial the run plays, in order: all of them, or its shard's."""
    from ..results.shards import planned, shard_slice

    ids = [c.eval_id for c in plan.cases]
    if options.shard is None:
        return planned(ids, options.repeats)
    return shard_slice(ids, options.repeats, *options.shard)


@contextlib.contextmanager
def judged(plan: Plan, say: Callable[[str], None], out: TextIO, log_dir: Path) -> Iterator[None]:
    """The run's judge in `plan.judge` for the block, opened only when a case to run declares
    an `llm_judge` check: its cache, and the budget of the gate's policy, shared by every trial.
    None configured is said here, and each such check is `skipped` saying why."""
    if not plan.declares("llm_judge"):
        yield
        return
    from ..models.judge import GRADING
    from ..models.judge.budget import gate_budget
    from ..models.judge.setup import NoJudge, configured, open_judge

    found = configured()
    if isinstance(found, NoJudge):  # no budget to read, no server to start
        print(f"judge: none; llm_judge checks are skipped: {found.reason}", file=out)
        plan.judge = found
        yield
        return
    budget = gate_budget()
    if budget.problem:  # no judge call could be made: refused before any trial
        raise OpsEvalError(
            EXIT_BAD_INPUT,
            f"the judge budget cannot be read, so no judge call may be made: {budget.problem}",
        )
    with open_judge(say, log_dir, budget, config=found) as judge:
        print(
            f"judge: {judge.pin}, prompt {GRADING.version}; budget: {budget.limit} tokens "
            f"({budget.source})",
            file=out,
        )
        plan.judge = judge
        yield


def judge_use(plan: Plan) -> Any:
    """What the run's judge did, for the record; None when the run had no judge."""
    return plan.judge.use() if judging(plan) else None


def provenance_fields(plan: Plan) -> dict[str, Any]:
    """What a run was of, by hash: the eval set, seed, instructions, tool schema, scorers and
    git commit (the run record's fields, and an MLflow logged model's)."""
    from ..core.agents import AGENTS
    from ..results.provenance import git_state, scorers_digest, sha256, tool_schema_digest

    source = current().source_root  # an installed wheel has no commit of its own
    commit, dirty = git_state(source) if source else (None, None)
    agents = sorted({c.meta.agent for c in plan.cases if c.meta})
    return {
        "eval_set": plan.evalset.display,
        "eval_set_sha256": sha256(plan.evalset.text),
        "seed_sha256": plan.seed.digest,
        "instruction_sha256": {a: sha256(AGENTS[a].instruction) for a in agents},
        "tool_schema_sha256": tool_schema_digest(),
        "scorers_sha256": scorers_digest(),
        "git_commit": commit,
        "git_dirty": dirty,
    }


def build_record(
    plan: Plan,
    trials: list[TrialRecord],
    options: RunOptions,
    interrupted: str | None = None,
    **run: Any,
) -> RunRecord:
    """The run record of `trials`, aggregated; `run` gives run_id, started_at, seconds, model.
    `interrupted`: what stopped the run before its end -- the record then holds the trials
    that finished, has no verdict (exit 3), and says so."""
    cases = [(c.eval_id, c.meta.category if c.meta else "?") for c in plan.cases]
    shard = None
    if options.shard is not None:  # aggregates of the cases in the shard, as far as it goes
        keys = planned_trials(plan, options)
        present = {case for case, _ in keys}
        cases = [c for c in cases if c[0] in present]
        index, count = options.shard
        shard = ShardInfo(index=index, count=count, trials=keys, group=options.run_group)
    agg = aggregate(cases, trials, options.repeats, plan.criteria.threshold)
    fields = record_fields(agg, trials)
    stopped = None
    if interrupted is not None:
        planned = len(planned_trials(plan, options))
        stopped = Interrupted(planned=planned, finished=len(trials), reason=interrupted)
        fields.update(gate_passed=False, exit_code=EXIT_INFRA)
        fields["notes"] = [
            f"interrupted ({interrupted}) after {len(trials)} of {planned} trials: the record "
            "holds the finished ones and has no verdict; the gate never takes it for a run",
            *fields["notes"],
        ]
    return RunRecord(
        **run,
        **provenance_fields(plan),
        criteria={"threshold": plan.criteria.threshold, "match_type": plan.criteria.match_type},
        repeats=options.repeats,
        concurrency=options.concurrency,
        selected_cases=[c.eval_id for c in plan.cases],
        trials=trials,
        shard=shard,
        interrupted=stopped,
        **fields,
    )


def _capped(options: RunOptions, parallel: int | None) -> str | None:
    """Why fewer trials run at once than asked: the model serves fewer conversations at once
    to advantage (the embedded server, one; more would only slow it)."""
    if parallel is None or options.concurrency <= parallel:
        return None
    return (
        f"the model serves {parallel} conversation(s) at a time to advantage; concurrency "
        f"{options.concurrency} lowered to {parallel}"
    )


def check_options(options: RunOptions) -> None:
    """Repeats, concurrency and the trial timeout, refused (exit 2) before anything runs --
    for `ops-eval run` and `ops-eval mlflow` alike."""
    count("--repeats", options.repeats, MAX_REPEATS)
    count("--concurrency", options.concurrency, MAX_CONCURRENCY)
    trial_timeout("--timeout", options.timeout_s)
    if options.shard is not None:
        index, shards = options.shard
        if not 1 <= index <= shards <= MAX_SHARDS:
            raise OpsEvalError(
                EXIT_BAD_INPUT, f"--shard {index}/{shards}: needs 1 <= I <= N <= {MAX_SHARDS:,}"
            )


def check_shard(plan: Plan, options: RunOptions) -> None:
    """A shard with no trial in it (more shards than trials) is refused before anything runs."""
    if options.shard is not None and not planned_trials(plan, options):
        index, count = options.shard
        total = len(plan.cases) * options.repeats
        raise OpsEvalError(
            EXIT_BAD_INPUT,
            f"--shard {index}/{count}: holds no trial (the run has {total} trial(s))",
        )


def record_path(options: RunOptions, plan: Plan, started: datetime) -> Path:
    """The record's path, refused before any trial runs when it cannot be written."""
    if options.output is None:
        stamp = started.strftime("%Y%m%dT%H%M%SZ")
        name = plan.evalset.path.name.removesuffix(".evalset.json")
        return current().runs_dir / f"{stamp}-{name}-{uuid.uuid4().hex[:6]}.json"
    return output_file("--output", options.output)


def check_writable(path: Path, option: str = "--output") -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        existed = path.exists()
        with path.open("a", encoding="utf-8"):
            pass
        if not existed:
            path.unlink()
    except OSError as exc:
        raise OpsEvalError(
            EXIT_BAD_INPUT, f"{option} {path}: cannot write ({exc.strerror})"
        ) from None


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
            capped = _capped(options, choice.parallel)
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
                    asyncio.run(_trials(plan, choice.model, options, done))
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
