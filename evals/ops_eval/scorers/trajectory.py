"""The trajectory gate (the configured criterion: IN_ORDER, threshold 1.0), per turn, averaged.

Without argument matchers it is ADK's own verdict: its event-to-invocation conversion and
`TrajectoryEvaluator`, unchanged, handed the calls as the tools take them (every optional
argument at the value the tool gets, `matching.canonical`) -- what `adk eval` computes, except that
`adk eval` would fail `list_incidents(service=None, status="open")` against an expected
`list_incidents(status="open")`, the same call to the tool. When the case (or its set) declares
argument matchers in `meta.contracts.args`, `ops-eval` judges the same turns in the same mode
with each argument held to its matcher (`matching.mode_holds`), and says so in the detail;
`adk eval`, which ignores `meta`, still applies the exact expected arguments. The gate's mode is
always `test_config.json`'s; a case's `contracts.mode` is only a second reading (`contract_mode`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..agents import AGENTS
from ..core.matching import as_taken, entity_kinds, first_unmatched, matcher_for, mode_holds
from .base import Score, scorer

if TYPE_CHECKING:
    from ..core.plan import Plan
    from ..core.trial import TrialView

WITH_MATCHERS = "with the case's argument matchers"


@scorer(
    cases="scripted",
    name="trajectory",
    needs=("events",),
    passes_when="the configured criterion (IN_ORDER, 1.0): ADK's own `TrajectoryEvaluator`, or "
    "the same mode with each argument under its matcher when the case declares matchers",
    gate="mean",
)
def trajectory(trial: TrialView, plan: Plan) -> Score:
    matchers = plan.contracts(trial.case).args
    if matchers and not plan.criteria.ignore_args:
        return _with_matchers(trial, plan)
    return _adk(trial, plan)


def _with_matchers(trial: TrialView, plan: Plan) -> Score:
    criteria = plan.criteria
    matchers = plan.contracts(trial.case).args
    expected = plan.adk_cases[trial.case.eval_id].conversation
    if len(trial.turns) != len(expected):
        raise RuntimeError(f"{len(trial.turns)} turns for {len(expected)} expected turns")
    kinds = entity_kinds(trial.case.meta.agent)
    same = matcher_for(matchers, kinds)
    per_turn, why = [], []
    for turn in trial.turns:
        held = mode_holds(criteria.match_type, turn.expected, turn.calls, same)
        per_turn.append(1.0 if held else 0.0)
        if not held:
            reason = first_unmatched(turn.expected, turn.calls, matchers, kinds)
            why.append(f"turn {turn.index}: {reason}")
    mean = sum(per_turn) / len(per_turn) if per_turn else 0.0
    detail = f"{criteria.match_type} {WITH_MATCHERS}, per turn {per_turn}"
    if why:
        detail += "; " + "; ".join(why)
    return Score.of(mean >= criteria.threshold, detail, value=mean, per_turn=per_turn)


def _adk(trial: TrialView, plan: Plan) -> Score:
    from google.adk.evaluation.eval_metrics import EvalMetric, ToolTrajectoryCriterion
    from google.adk.evaluation.evaluation_generator import EvaluationGenerator
    from google.adk.evaluation.trajectory_evaluator import TrajectoryEvaluator

    criteria = plan.criteria
    specs = AGENTS[trial.case.meta.agent].tools()
    expected = as_the_tools_see_them(plan.adk_cases[trial.case.eval_id].conversation, specs)
    actual = as_the_tools_see_them(
        EvaluationGenerator.convert_events_to_eval_invocations(trial.events), specs
    )
    if len(actual) != len(expected):
        raise RuntimeError(f"{len(actual)} invocations for {len(expected)} expected turns")
    criterion = ToolTrajectoryCriterion(
        threshold=criteria.threshold,
        match_type=ToolTrajectoryCriterion.MatchType[criteria.match_type],
        ignore_args=criteria.ignore_args,
    )
    metric = EvalMetric(
        metric_name="tool_trajectory_avg_score", threshold=criteria.threshold, criterion=criterion
    )
    result = TrajectoryEvaluator(eval_metric=metric).evaluate_invocations(actual, expected)
    per_turn = [r.score for r in result.per_invocation_results]
    mean = sum(per_turn) / len(per_turn) if per_turn else 0.0
    detail = f"{criteria.match_type}, per turn {per_turn}"
    kinds = entity_kinds(trial.case.meta.agent)
    why = [
        f"turn {turn.index}: {first_unmatched(turn.expected, turn.calls, {}, kinds)}"
        for turn, score in zip(trial.turns, per_turn, strict=False)
        if score is not None and score < criteria.threshold
    ]
    detail += "".join(f"; {w}" for w in why)  # the first failing turn's calls, for the reports
    return Score.of(mean >= criteria.threshold, detail, value=mean, per_turn=per_turn)


def as_the_tools_see_them(invocations: list[Any], specs: Any) -> list[Any]:
    """The invocations with their tool calls alone (what ADK's trajectory evaluator reads),
    each holding every optional argument at the value the tool takes (`matching.as_taken`):
    ADK compares whole argument dicts, and `list_incidents(service=None, status="open")` is the
    call the case expects as `list_incidents(status="open")`. Shallow copies with new calls:
    the trial's own events are left as they are."""
    from google.adk.evaluation.eval_case import IntermediateData, get_all_tool_calls

    def taken(call: Any) -> Any:
        if not call.name:
            return call
        return call.model_copy(update={"args": as_taken(call.name, call.args or {}, specs)})

    return [
        invocation.model_copy(
            update={
                "intermediate_data": IntermediateData(
                    tool_uses=[taken(c) for c in get_all_tool_calls(invocation.intermediate_data)]
                )
            }
        )
        for invocation in invocations
    ]
