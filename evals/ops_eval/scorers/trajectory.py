"""ADK's own trajectory verdict: its event-to-invocation conversion and `TrajectoryEvaluator`
with the configured criterion (the gate: IN_ORDER, threshold 1.0), per turn, averaged."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .base import Score, scorer

if TYPE_CHECKING:
    from ..calls import TrialView
    from ..plan import Plan


@scorer(
    name="trajectory",
    needs=("events",),
    passes_when="ADK's own `TrajectoryEvaluator` with the configured criterion (IN_ORDER, 1.0)",
    gate="mean",
)
def trajectory(trial: TrialView, plan: Plan) -> Score:
    from google.adk.evaluation.eval_metrics import EvalMetric, ToolTrajectoryCriterion
    from google.adk.evaluation.evaluation_generator import EvaluationGenerator
    from google.adk.evaluation.trajectory_evaluator import TrajectoryEvaluator

    criteria = plan.criteria
    expected = plan.adk_cases[trial.case.eval_id].conversation
    actual = EvaluationGenerator.convert_events_to_eval_invocations(trial.events)
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
    return Score.of(
        mean >= criteria.threshold,
        f"{criteria.match_type}, per turn {per_turn}",
        value=mean,
        per_turn=per_turn,
    )
