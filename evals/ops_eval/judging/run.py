"""The judge opened for a run, handed to the engine by whoever drives it (`ops-eval run`, `mlflow`
and `mutate --live`, and `execute` here, the package's public one): opened only when a case to
run declares an `llm_judge` check, with its cache and the gate policy's budget
(`gate_budget`), shared by every trial; what it did is read back by `running.judge`."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from ..base.exits import EXIT_BAD_INPUT, OpsEvalError
from ..core.plan import Plan

if TYPE_CHECKING:
    from ..results.records import RunRecord
    from ..running.options import RunOptions
    from .budget import Budget


def gate_budget(path: Path | None = None) -> Budget:
    """The budget the gate's policy declares; a Budget that blocks every call, saying why, when
    the file or the field cannot be read."""
    from ..validation.gate_config import GateConfigError, gate_file, read_gate_config
    from .budget import Budget

    path = path or gate_file()
    try:
        config, _ = read_gate_config(path)
    except GateConfigError as exc:
        return Budget(limit=None, source=str(path), problem=str(exc))
    if config.judge_budget_tokens is None:
        return Budget(
            limit=None, source=str(path), problem=f"{path} declares no judge_budget_tokens"
        )
    return Budget(limit=config.judge_budget_tokens, source=f"{path} (judge_budget_tokens)")


@contextlib.contextmanager
def judged(plan: Plan, say: Callable[[str], None], out: TextIO, log_dir: Path) -> Iterator[None]:
    """The run's judge in `plan.judge` for the block, opened only when a case to run declares
    an `llm_judge` check: its cache, and the budget of the gate's policy, shared by every trial.
    None configured is said here, and each such check is `skipped` saying why."""
    if not plan.declares("llm_judge"):
        yield
        return
    from .prompts import GRADING
    from .setup import NoJudge, configured, open_judge

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


def execute(options: RunOptions, **given: Any) -> tuple[int, RunRecord, Path]:
    """`running.execute.execute` with the run's judge handed (`judged`), unless `given` names
    one: `ops_eval.execute`, the library's run, judges as `ops-eval run` does."""
    from ..running.execute import execute as play

    given.setdefault("judge", judged)
    return play(options, **given)
