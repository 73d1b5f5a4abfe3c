"""The engine: the one loop that plays trials (`play_trials`), every planned trial of a run played
on the agent and scored by the registry, a few at a time, each handed on as it finishes so that a
run cut short keeps what finished. `ops-eval run` (and each arm of `mutate --live`) drives it with
the trial's span around each trial; the deterministic mutants (`mutate.play_all`) with the
mutant applied around each. `play_one` is one trial played with the run's options -- the step
the loop takes, and what MLflow's own loop over rows calls (`outputs.tracking.live`). Nothing
else calls `playing.play.play_trial` (`tools/architecture.py` holds it).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import Executor, ThreadPoolExecutor
from contextlib import AbstractContextManager, nullcontext
from typing import TYPE_CHECKING, Any

from ..core.evalset import Case
from ..core.plan import Plan
from ..results.minimal import Minimal
from ..results.record_parts import TrialRecord, trial_status
from .judge import judging
from .options import RunOptions, planned_trials

if TYPE_CHECKING:
    from ..core.trial import TrialView

Around = Callable[[Case, int], AbstractContextManager[Any]]
"""What is entered around each trial's play (case, repeat), and left before it is scored."""


def in_span(case: Case, repeat: int) -> AbstractContextManager[Any]:
    """The trial's span, which ADK's spans of the trial nest under (`ops-eval run`)."""
    from ..playing.spans import trial_span

    return trial_span(case.eval_id, repeat)


def bare(case: Case, repeat: int) -> AbstractContextManager[Any]:
    """Nothing around the trial."""
    return nullcontext()


def scored_trial(plan: Plan, view: TrialView, minimal: Minimal | None = None) -> TrialRecord:
    """A played trial, scored by the registry, as the run record keeps it. A scorer that
    crashes leaves the trial without a verdict (an error), but what was played is kept. A
    trial fails when any score fails or errs: an `error` score (a scorer that applies but
    reached no verdict) fails closed, never passes. Under `minimal` data, scored on the whole
    trial here, in memory, and kept as hashes and labels: no text leaves this function."""
    from ..scorers import ScorerCrashed, score_trial

    try:
        scores = score_trial(view, plan)
    except ScorerCrashed as exc:
        view.error, scores = str(exc), {}
    meta = view.case.meta
    status = "error" if view.error else trial_status(scores)
    kept = TrialRecord(
        case_id=view.case.eval_id,
        category=meta.category if meta else "?",
        repeat=view.repeat,
        status=status,
        error=view.error,
        looped=view.looped,
        turns=view.turns,  # as far as the trial got
        scores=scores,
        seconds=view.seconds,
        state_after=_dumped(view.after),
        conversation=view.conversation,
    )
    return kept if minimal is None else minimal.trial(kept)


def _dumped(snapshot: Any) -> dict[str, Any]:
    """A state snapshot as the record keeps it: a pydantic model's dump, a mapping as it is."""
    if snapshot is None:
        return {}
    return snapshot.model_dump() if hasattr(snapshot, "model_dump") else dict(snapshot)


async def play_one(
    plan: Plan, case: Case, repeat: int, model: Any, options: RunOptions, around: Around = bare
) -> TrialView:
    """One trial of `case` played on `model` with the run's trial timeout and users, inside
    `around` (left before the trial is scored: a mutant applied there never scores)."""
    from ..playing.play import play_trial

    with around(case, repeat):
        return await play_trial(plan, case, repeat, model, options.timeout_s, options.users)


async def _trial(
    plan: Plan,
    case: Case,
    repeat: int,
    model: Any,
    options: RunOptions,
    judges: Executor | None,
    around: Around,
) -> TrialRecord:
    view = await play_one(plan, case, repeat, model, options, around)
    if judges is None:
        return scored_trial(plan, view, options.minimal)
    # A judge call blocks for seconds: scored off the loop, other trials keep playing.
    return await asyncio.get_running_loop().run_in_executor(
        judges, scored_trial, plan, view, options.minimal
    )


async def play_trials(
    plan: Plan,
    model: Any,
    options: RunOptions,
    on_done: Callable[[TrialRecord], None],
    around: Around = in_span,
) -> None:
    """Play every planned trial, `options.concurrency` at a time, each inside `around`; each
    finished trial goes to `on_done` as it finishes, so a run cut short still has them."""
    semaphore = asyncio.Semaphore(max(1, options.concurrency))
    # Judged trials are scored in threads of their own, not asyncio's default executor: a run
    # stopped by Ctrl-C does not wait for a judge call in flight (up to its timeout) before it
    # writes what finished.
    judges = ThreadPoolExecutor(max(1, options.concurrency)) if judging(plan) else None

    async def one(case: Case, repeat: int) -> None:
        async with semaphore:
            trial = await _trial(plan, case, repeat, model, options, judges, around)
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
