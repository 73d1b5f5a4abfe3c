"""MLflow `@scorer` wrappers over the scorer registry: no second implementation.

Each conversation is scored once, by the registry (`running.trials.scored_trial`, exactly as
`ops-eval run` scores it), when it is played -- or it was scored when the run record was
written. A wrapper hands MLflow its registry scorer's verdict for the row as a `Feedback`:

- a scorer that gates every trial (`gate="all"`): True for pass, False for fail;
- the mean-gated trajectory scorer and the report scorers: the registry's value (ADK's per-trial
  trajectory score, partial credit, ...);
- `n/a`: no value, with the reason -- MLflow leaves it out of the mean, never a pass;
- `skipped` (the scorer applies but was not run, e.g. no judge configured): no value, the
  rationale "skipped: <why>" -- left out of the mean like n/a;
- an `error` score (the scorer applies but reached no verdict): an error with its detail, which
  fails a gating metric as the run's own gate counts it against the trial;
- a trial that errored (model down, timeout, a scorer crash): an error, never a value.

The four scorers of the course are logged under the course's names (`COURSE`); the others under
their registry names. The optional judge is the one scorer here with its own logic: it asks the
judge model (`judging.mlflow.ask_judge`) and never gates.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from ...judging import JudgeConfig, JudgeError, ask_judge
from ...results.aggregation import counted_value
from ...scorers import registered
from .rows import Key, key_of

if TYPE_CHECKING:
    from ...results.records import TrialRecord

COURSE = {
    "tool_trajectory": "trajectory",
    "complete_conversation": "complete",
    "response_facts": "facts",
    "tool_policy": "tool_policy",
}
"""The course's metric name -> our registry's scorer. These four must all have mean 1.0."""
JUDGE = "judge"


def gating() -> frozenset[str]:
    """The MLflow names of the registry scorers that gate a run (all but report scorers)."""
    return frozenset(mlflow_name(n) for n, entry in registered().items() if entry.gate != "report")


def mlflow_name(registry_name: str) -> str:
    return next((k for k, v in COURSE.items() if v == registry_name), registry_name)


class Book:
    """Every conversation's scored trial, by row, filled as conversations are played (several
    MLflow worker threads may fill it at once) or all at once from a run record."""

    def __init__(self, trials: list[TrialRecord] | None = None) -> None:
        self._lock = threading.Lock()
        self._trials: dict[Key, TrialRecord] = {}
        for trial in trials or []:
            self.put(trial)

    def put(self, trial: TrialRecord) -> None:
        with self._lock:
            self._trials[(trial.case_id, trial.repeat)] = trial

    def get(self, key: Key) -> TrialRecord | None:
        with self._lock:
            return self._trials.get(key)

    def trials(self) -> list[TrialRecord]:
        with self._lock:
            return list(self._trials.values())


def _registry_feedback(book: Book, name: str, inputs: dict[str, Any]) -> Any:
    from mlflow.entities import Feedback

    trial = book.get(key_of(inputs))
    if trial is None:
        return Feedback(error=f"conversation {key_of(inputs)} was not played")
    if trial.status == "error":
        return Feedback(error=f"the trial has no verdict: {trial.error}")
    score = trial.scores.get(name)
    if score is None:
        return Feedback(error=f"the registry gave no {name} score for this trial")
    if score.outcome == "error":
        return Feedback(error=score.detail)
    if score.outcome == "skipped":
        return Feedback(value=None, rationale=f"skipped: {score.detail}")
    if score.outcome == "n/a":
        return Feedback(value=None, rationale=f"not applicable: {score.detail}")
    rationale = score.detail or ("passed" if score.passed else "failed")
    if registered()[name].gate == "all":
        return Feedback(value=score.passed, rationale=rationale)
    value = counted_value(score)  # no value counts 0, as in the run's own means
    if not 0.0 <= value <= 1.0:
        return Feedback(error=f"{name} {score.outcome} with value {score.value}, not 0 to 1")
    if score.value is None:
        rationale += " (no value: counted 0, as the run's means count it)"
    return Feedback(value=value, rationale=rationale)


def registry_scorers(book: Book) -> list[Any]:
    """One MLflow scorer per registry scorer, each reading its verdict from `book`."""
    from mlflow.genai.scorers import scorer

    def wrap(name: str) -> Any:
        def verdict(inputs: dict[str, Any]) -> Any:
            return _registry_feedback(book, name, inputs)

        verdict.__doc__ = registered()[name].passes_when
        return scorer(name=mlflow_name(name))(verdict)

    return [wrap(name) for name in registered()]


def judged_turns(inputs: dict[str, Any], outputs: dict[str, Any], expectations: dict[str, Any]):
    """What the judge grades: each turn's question, the agent's own answer and the reference.
    Turns whose answer the harness wrote (an approval pause) or with no reference are left
    out -- a judge must never grade text the harness wrote."""
    prompts = inputs.get("turns") or []
    references = (expectations or {}).get("references") or []
    graded = []
    for prompt, turn, reference in zip(
        prompts, outputs.get("turns") or [], references, strict=False
    ):
        if turn.get("response_written_by_harness") or not reference.strip():
            continue
        graded.append(
            {"question": prompt, "answer": turn.get("response", ""), "reference": reference}
        )
    return graded


def judge_scorer(config: JudgeConfig, book: Book) -> Any:
    """The optional judge as an MLflow scorer: evidence, not a gate."""
    from mlflow.entities import AssessmentSource, AssessmentSourceType, Feedback
    from mlflow.genai.scorers import scorer

    source = AssessmentSource(source_type=AssessmentSourceType.LLM_JUDGE, source_id=config.model)

    @scorer(name=JUDGE)
    def judge(inputs: dict[str, Any], outputs: dict[str, Any], expectations: dict[str, Any]):
        trial = book.get(key_of(inputs))
        if trial is not None and trial.status == "error":
            return Feedback(error=f"the trial has no verdict: {trial.error}", source=source)
        turns = judged_turns(inputs, outputs, expectations)
        if not turns:
            return Feedback(
                value=None,
                rationale="not applicable: no answer of the agent's own with a reference",
                source=source,
            )
        try:
            verdict = ask_judge(config, turns)
        except JudgeError as exc:
            return Feedback(error=str(exc), source=source)
        return Feedback(value=verdict.passed, rationale=verdict.rationale, source=source)

    return judge
