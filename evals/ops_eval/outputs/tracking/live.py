"""Playing an eval set live for MLflow: each row's conversation on the chosen model, scored by the
registry as it ends, and the run record `ops-eval run` would write, built from the same trials.

MLflow calls `LivePlay.predict` from its worker threads, inside each row's trace; the
conversations themselves run on one event loop (`replay.LoopThread`), as `ops-eval run` plays
them, so LiteLLM's async clients stay on one loop. The loop over rows is MLflow's; each row is
the engine's one step (`running.trials.play_one`), scored here, in MLflow's thread, so a judge
call never blocks the loop the other rows play on.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .replay import LoopThread, pause_spans
from .rows import case_row, trial_outputs
from .scorers import Book

if TYPE_CHECKING:
    from ...core.plan import Plan
    from ...models.choice import ModelChoice, Say
    from ...results.records import RunRecord
    from ...running.options import RunOptions


def live_options(args: argparse.Namespace) -> RunOptions:
    """The run options of `ops-eval mlflow` (those of `ops-eval run` it shares), checked as
    `ops-eval run` checks them (`--output` is checked where its path is made, `record_path`)."""
    from ...base.inputs import id_list
    from ...running.options import RunOptions, check_options

    options = RunOptions(
        cases=id_list("--cases", args.cases),
        repeats=1 if args.repeats is None else args.repeats,
        concurrency=1 if args.concurrency is None else args.concurrency,
        model=args.model,
        output=Path(args.output) if args.output else None,
        timeout_s=600.0 if args.timeout is None else args.timeout,
        users=args.user or "scripted",
        data=args.data,
    )
    if args.set:
        options.set_path = Path(args.set)
    check_options(options)
    return options


@dataclass
class LivePlay:
    plan: Plan
    options: RunOptions
    choice: ModelChoice
    say: Say
    started: datetime
    book: Book = field(default_factory=Book)
    loop: LoopThread = field(default_factory=LoopThread)
    provenance: dict[str, Any] = field(init=False)

    def __post_init__(self) -> None:
        from ...running.record import provenance_fields

        self.provenance = provenance_fields(self.plan)  # before anything plays

    @property
    def keys(self) -> list[tuple[str, int]]:
        return [(c.eval_id, r) for c in self.plan.cases for r in range(1, self.options.repeats + 1)]

    def rows(self) -> list[dict[str, Any]]:
        cases = {c.eval_id: c for c in self.plan.cases}
        return [case_row(cases[case], repeat) for case, repeat in self.keys]

    def predict(self, case_id: str, repeat: int, turns: list[str]) -> dict[str, Any]:
        """One conversation: every turn in a fresh session and store, scored by the registry;
        a span per approval pause; what MLflow logs as the row's outputs."""
        from ...running.trials import play_one, scored_trial

        case = next(c for c in self.plan.cases if c.eval_id == case_id)
        # MLflow's loop over rows, the engine's step: played on the loop, scored in this thread
        view = self.loop.run(play_one(self.plan, case, repeat, self.choice.model, self.options))
        trial = scored_trial(self.plan, view)
        self.book.put(trial)
        for turn in trial.turns:
            pause_spans(turn)
        self.say(
            f"{case_id} #{repeat} {trial.status}" + (f" ({trial.error})" if trial.error else "")
        )
        return trial_outputs(trial)

    def record(self, run_id: str, workers: int) -> RunRecord:
        """The run record of every conversation played; RuntimeError if MLflow skipped one."""
        from ...results.records import ModelInfo
        from ...running.judge import judge_use
        from ...running.record import build_record

        trials = [self.book.get(key) for key in self.keys]
        unplayed = [f"{c} #{r}" for (c, r), t in zip(self.keys, trials, strict=True) if not t]
        if unplayed:
            raise RuntimeError(f"MLflow did not play {', '.join(unplayed[:5])}")
        choice = self.choice
        return build_record(
            self.plan,
            trials,  # type: ignore[arg-type]
            replace(self.options, concurrency=workers),
            self.provenance,
            run_id=run_id,
            started_at=self.started.isoformat(timespec="seconds"),
            seconds=(datetime.now(UTC) - self.started).total_seconds(),
            model=ModelInfo(**choice.described()),
            judge=judge_use(self.plan),
        )
