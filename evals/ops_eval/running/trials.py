"""The engine: the one loop that plays (`_each`), a few at a time, each piece of work handed on as
it finishes so that a run cut short keeps what finished. It plays two kinds of work. Eval trials
(`play_trials`): every planned trial of a run played on the agent and scored by the registry;
`ops-eval run` (and each arm of `mutate --live`) enters the trial's span around each trial, the
deterministic mutants (mutation testing, offline) the mutant applied around each (hook `around`).
`play_one` is one trial played with the run's options -- the step the loop takes, and what
MLflow's own loop over rows calls (`outputs.tracking.live`); a run that asks for it gets a
progress line from a trial silent for a while (`heartbeat`). And units of work (`play_work`):
each a `Work` that hands the engine its scripted sessions (`playing.play.Scripted`: fixed
prompts on an agent and a workspace it made, such as a planted seed copy, every pause answered
as it says), played in order until one fails, then judges what was played -- the red team's
attacks, deterministic and live, one unit per attack and mode. Nothing else calls
`playing.play`'s players (`tools/architecture.py` holds it).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable, Iterator
from concurrent.futures import Executor, ThreadPoolExecutor
from contextlib import AbstractContextManager, nullcontext
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from ..core.evalset import Case
from ..core.plan import Plan
from ..results.minimal import Minimal
from ..results.record_parts import TrialRecord, trial_status
from .judge import judging
from .options import RunOptions, planned_trials

if TYPE_CHECKING:
    from ..core.trial import TrialView
    from ..playing.play import Played, Scripted
    from ..playing.pulse import Pulse

T = TypeVar("T")
R = TypeVar("R")
R_co = TypeVar("R_co", covariant=True)

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
    except ScorerCrashed as exc:  # `scorer NAME: ...`, said as its side (`playing.sides`)
        view.error, scores = f"scorer: {str(exc).removeprefix('scorer ')}", {}
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
    plan: Plan,
    case: Case,
    repeat: int,
    model: Any,
    options: RunOptions,
    around: Around = bare,
    pulse: Pulse | None = None,
) -> TrialView:
    """One trial of `case` played on `model` with the run's trial timeout and users, inside
    `around` (left before the trial is scored: a mutant applied there never scores); `pulse`
    follows where it is as it plays."""
    from ..playing.play import play_trial

    with around(case, repeat):
        return await play_trial(plan, case, repeat, model, options.timeout_s, options.users, pulse)


async def _watched(
    plan: Plan,
    case: Case,
    repeat: int,
    model: Any,
    options: RunOptions,
    around: Around,
    say: Callable[[str], None] | None,
) -> TrialView:
    """`play_one`, with a progress line to `say` whenever the trial is silent a while."""
    if say is None:
        return await play_one(plan, case, repeat, model, options, around)
    from ..playing.pulse import Pulse
    from .heartbeat import heartbeat

    pulse = Pulse(case.eval_id, repeat)
    beating = asyncio.create_task(heartbeat(pulse, say))
    try:
        return await play_one(plan, case, repeat, model, options, around, pulse)
    finally:
        beating.cancel()


async def _trial(
    plan: Plan,
    case: Case,
    repeat: int,
    model: Any,
    options: RunOptions,
    judges: Executor | None,
    around: Around,
    say: Callable[[str], None] | None = None,
) -> TrialRecord:
    view = await _watched(plan, case, repeat, model, options, around, say)
    if judges is None:
        return scored_trial(plan, view, options.minimal)
    # A judge call blocks for seconds: scored off the loop, other trials keep playing.
    return await asyncio.get_running_loop().run_in_executor(
        judges, scored_trial, plan, view, options.minimal
    )


async def _each(
    items: Iterable[T],
    step: Callable[[T], Awaitable[R]],
    on_done: Callable[[R], None],
    concurrency: int,
) -> list[R]:
    """The one loop: `step` each item, `concurrency` at a time; each result to `on_done` as it
    finishes, and all of them, in the items' order, at the end."""
    semaphore = asyncio.Semaphore(max(1, concurrency))

    async def one(item: T) -> R:
        async with semaphore:
            done = await step(item)
        on_done(done)
        return done

    return list(await asyncio.gather(*(one(item) for item in items)))


async def play_trials(
    plan: Plan,
    model: Any,
    options: RunOptions,
    on_done: Callable[[TrialRecord], None],
    around: Around = in_span,
    say: Callable[[str], None] | None = None,
) -> None:
    """Play every planned trial, `options.concurrency` at a time, each inside `around`; each
    finished trial goes to `on_done` as it finishes, so a run cut short still has them. `say`:
    where a progress line of a trial silent a while goes (`heartbeat`); None, no such line."""
    # Judged trials are scored in threads of their own, not asyncio's default executor: a run
    # stopped by Ctrl-C does not wait for a judge call in flight (up to its timeout) before it
    # writes what finished.
    judges = ThreadPoolExecutor(max(1, options.concurrency)) if judging(plan) else None
    by_id = {case.eval_id: case for case in plan.cases}

    async def trial(planned: tuple[str, int]) -> TrialRecord:
        case, repeat = planned
        return await _trial(plan, by_id[case], repeat, model, options, judges, around, say)

    try:
        await _each(planned_trials(plan, options), trial, on_done, options.concurrency)
    finally:
        if judges is not None:
            judges.shutdown(wait=False, cancel_futures=True)


class Work(Protocol[R_co]):
    """A unit of work the engine plays besides an eval trial: the scripted sessions it needs,
    made as the engine asks for each (the next one may depend on the one before), then its
    verdict on what was played."""

    def sessions(self) -> Iterator[Scripted]: ...

    def judged(self, played: list[Played]) -> R_co: ...


async def play_unit(unit: Work[R]) -> R:
    """One unit: its sessions played in order until one fails (a session that could not even be
    made fails like one that could not be played), then judged on what was played."""
    from ..playing.play import Played, play_session

    played: list[Played] = []
    sessions = unit.sessions()
    while not played or played[-1].failure is None:
        try:
            script = next(sessions)
        except StopIteration:
            break
        except Exception as exc:
            played.append(Played(failure=exc))
            break
        played.append(await play_session(script))
    return unit.judged(played)


async def play_work(
    units: Iterable[Work[R]],
    on_done: Callable[[R], None] = lambda done: None,
    concurrency: int = 1,
) -> list[R]:
    """Play every unit, `concurrency` at a time; each verdict to `on_done` as it is reached,
    and all of them, in the units' order, at the end."""
    return await _each(units, play_unit, on_done, concurrency)


def in_plan_order(plan: Plan, options: RunOptions, trials: list[TrialRecord]) -> list[TrialRecord]:
    """The finished trials in the order they were planned (they finish in any order)."""
    order = {key: i for i, key in enumerate(planned_trials(plan, options))}
    return sorted(trials, key=lambda t: order[(t.case_id, t.repeat)])
