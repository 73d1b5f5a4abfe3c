"""The engine's side of the run's judge, through `core.judge_port` only: the judge is opened by
whoever drives the run (`Opener`: `judging.run.judged`, which `ops-eval run`, `mlflow` and
`mutate --live` hand the engine, and `ops_eval.execute` too), kept in `plan.judge`, and read
back here -- whether the run has one to call, and what it did, for the record."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TextIO

from ..core.judge_port import NoJudge
from ..core.plan import Plan

Opener = Callable[
    [Plan, Callable[[str], None], TextIO, Path], contextlib.AbstractContextManager[None]
]
"""What opens a run's judge: (plan, say, out, log dir) -> a block with `plan.judge` set (a judge,
or a `NoJudge` saying why there is none) when a case to run declares an `llm_judge` check."""

NOT_HANDED = "no judge was handed to this run (ops_eval.execute and `ops-eval run` hand one)"


def judging(plan: Plan) -> bool:
    """Whether the run has a judge that will be called (not none, not a NoJudge)."""
    return plan.judge is not None and not isinstance(plan.judge, NoJudge)


@contextlib.contextmanager
def unjudged(plan: Plan, say: Callable[[str], None], out: TextIO, log_dir: Path) -> Iterator[None]:
    """The run of a caller that handed no judge: each `llm_judge` check is `skipped`, saying so."""
    if plan.declares("llm_judge"):
        print(f"judge: none; llm_judge checks are skipped: {NOT_HANDED}", file=out)
        plan.judge = NoJudge(NOT_HANDED)
    yield


def judge_use(plan: Plan) -> Any:
    """What the run's judge did, for the record; None when the run had no judge."""
    return plan.judge.use() if judging(plan) else None
