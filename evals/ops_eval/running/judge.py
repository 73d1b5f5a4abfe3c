"""The run's judge: opened for the run only when a case to run declares an `llm_judge` check,
with its cache and the gate policy's budget, and what it did, for the record."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TextIO

from ..base.exits import EXIT_BAD_INPUT, OpsEvalError
from ..core.plan import Plan


def judging(plan: Plan) -> bool:
    """Whether the run has a judge that will be called (not none, not a NoJudge)."""
    from ..models.judge import Judge

    return isinstance(plan.judge, Judge)


@contextlib.contextmanager
def judged(plan: Plan, say: Callable[[str], None], out: TextIO, log_dir: Path) -> Iterator[None]:
    """The run's judge in `plan.judge` for the block, opened only when a case to run declares
    an `llm_judge` check: its cache, and the budget of the gate's policy, shared by every trial.
    None configured is said here, and each such check is `skipped` saying why."""
    if not plan.declares("llm_judge"):
        yield
        return
    from ..models.judge import GRADING
    from ..models.judge.setup import NoJudge, configured, open_judge
    from ..validation.gate_config import gate_budget

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
    from ..base.data_policy import active

    # A minimal-data run keeps no cache: a cached verdict holds the judge's rationale.
    with open_judge(say, log_dir, budget, config=found, cache=active() == "full") as judge:
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
