"""Each labelled trial scored again, offline, by the scorers and the answer guard as they are now.

A trial is scored as a run would score it (`scorers.score_trial`), on the case as it is now: each
played turn gets its case turn's current reference and expected calls, so a corrected reference
is measured, never the one the trial was played with -- and a case whose prompts changed since
is refused (its labels were given to another question). The answer guard is run on each answer
the agent gave, over events rebuilt from the trial's turns (the user's messages, each call and
the result it returned), on a fresh workspace of the seed: what the guard would have flagged in
that session. (What spotlighting removed from a tool result is not kept by a run record, so a
flag that only such removed text would raise is not rebuilt; removed text is an attack's, and
the red team measures that side.)
"""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

from ...base.exits import EXIT_BAD_INPUT, OpsEvalError
from .items import AnswerTrial

if TYPE_CHECKING:
    from ...core.plan import Plan
    from ...scorers import Outcome


@dataclass(frozen=True)
class Rescored:
    """A labelled trial as the readers read it now."""

    trial: AnswerTrial
    outcomes: dict[str, Outcome]
    """Each measured scorer's outcome on the trial; none for a scorer that does not apply to
    its case (it declares the case holds nothing of its kind: no verdict to measure)."""
    flagged: list[bool]
    """Per answer the agent gave: whether the answer guard flags it."""


def measured_scorers() -> list[str]:
    """The scorers that read answers in words (declared in the registry: `reads_answers`)."""
    from ...scorers import registered

    return [name for name, s in registered().items() if s.reads_answers]


def rescore(trials: list[AnswerTrial], folder: Any) -> list[Rescored]:
    """Every trial scored now (see the module docstring); OpsEvalError (exit 2) naming the
    trial when its set or case is gone or its questions changed."""
    from ...base.settings import current
    from ...scorers import registered, score_trial
    from ...validation.plan import load_plan

    plans: dict[str, Plan] = {}
    measured = {name: registered()[name] for name in measured_scorers()}
    out = []
    for trial in trials:
        if trial.set not in plans:
            path = current().evals_dir / trial.set
            if not path.is_file():
                raise _bad(folder, trial, f"its eval set {trial.set} is not in {path.parent}")
            plans[trial.set] = load_plan(path)
        plan = plans[trial.set]
        view = _view(plan, trial, folder)
        scores = score_trial(view, plan)
        outcomes = {
            name: scores[name].outcome
            for name, entry in measured.items()
            if name in scores and entry.not_applicable(view.case, plan) is None
        }
        out.append(Rescored(trial=trial, outcomes=outcomes, flagged=_guard(plan, trial)))
    return out


def _bad(folder: Any, trial: AnswerTrial, why: str) -> OpsEvalError:
    return OpsEvalError(EXIT_BAD_INPUT, f"{folder}: trial {trial.id!r}: {why}")


def _view(plan: Plan, trial: AnswerTrial, folder: Any) -> Any:
    from ...core.trial import TrialView

    case = next((c for c in plan.cases if c.eval_id == trial.case), None)
    if case is None:
        raise _bad(folder, trial, f"case {trial.case} is not in {trial.set} any more")
    turns = list(trial.turns)
    if case.scenario is None:
        specs = {spec.index: spec for spec in case.turns}
        for i, turn in enumerate(turns):
            spec = specs.get(turn.index)
            if spec is None or " ".join(spec.prompt.split()) != " ".join(turn.prompt.split()):
                raise _bad(
                    folder,
                    trial,
                    f"turn {turn.index}'s prompt is not case {trial.case}'s any more: its "
                    "labels answered another question (collect and label it again)",
                )
            turns[i] = turn.model_copy(
                update={"reference": spec.reference, "expected": list(spec.calls)}
            )
    return TrialView(
        case=case,
        repeat=trial.source.repeat,
        turns=turns,
        conversation=trial.conversation,
    )


def _guard(plan: Plan, trial: AnswerTrial) -> list[bool]:
    """Per answer the agent gave, whether the answer guard flags it in the rebuilt session."""
    from google.genai import types

    from ...agents.ops_guards import check_answer
    from ...agents.ops_state import Workspace
    from ...agents.ops_world import tool_specs

    tool_specs()  # the tools declared (registered on import), as a running agent has them
    ws = Workspace.fresh(plan.seed)
    events: list[Any] = []
    flagged = []
    for turn in trial.turns:
        events.append(_event("user", types.Part(text=turn.prompt)))
        for n, call in enumerate(turn.calls):
            ident = f"t{turn.index}c{n}"
            fc = types.FunctionCall(id=ident, name=call.name, args=dict(call.args))
            events.append(_event("agent", types.Part(function_call=fc)))
            if call.result is not None:
                fr = types.FunctionResponse(id=ident, name=call.name, response=call.result)
                events.append(_event("agent", types.Part(function_response=fr)))
        if not turn.response_synthesized:
            flagged.append(bool(check_answer(turn.answer, events, ws)))
    return flagged


def _event(author: str, part: Any) -> Any:
    """An event as the guard reads one: who wrote it, and its content."""
    from google.genai import types

    role = "user" if author == "user" or part.function_response else "model"
    return SimpleNamespace(author=author, content=types.Content(role=role, parts=[part]))
