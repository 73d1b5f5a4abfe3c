"""The `partial_credit` report scorer: precision, recall, F1, first divergence and edit distance
per turn; it never fails a trial and never decides a case."""

from __future__ import annotations

from ops_eval import ToolCall
from ops_eval.results.aggregation import aggregate
from ops_eval.results.records import TrialRecord
from ops_eval.scorers import registered
from ops_eval.scorers.base import Score
from ops_eval.scorers.partial_credit import edit_distance, f1, partial_credit

A, B, C = ToolCall("list_services"), ToolCall("list_skills"), ToolCall("list_incidents")


def same(e, a):
    return e.same(a)


def test_the_expected_calls_score_full_credit(trial, plan):
    score = partial_credit(trial("recommend-fix-inc-002"), plan)
    assert score.passed and score.value == 1.0 and score.per_turn == [1.0]
    assert score.figures == {"f1": 1.0, "edit_distance": 0.0}
    assert score.detail.endswith("no divergence")


def test_a_missing_call_lowers_recall_and_names_the_divergence(trial, plan):
    case = next(c for c in plan.cases if c.eval_id == "recommend-fix-inc-002")
    get, _, runbook = case.turns[0].calls
    score = partial_credit(trial("recommend-fix-inc-002", calls=[[get, runbook]]), plan)
    assert score.passed  # a report: a lower figure, never a failure
    assert score.value == 0.8 and score.figures == {"f1": 0.8, "edit_distance": 1 / 3}
    assert "turn 1: P 1.00 R 0.67 F1 0.80 edit 0.33" in score.detail
    assert "first divergence: turn 1, call 2: expected search_service_logs(" in score.detail
    assert score.detail.endswith("got get_runbook(slug=service-down)")


def test_matchers_apply_to_partial_credit(trial, plan):
    calls = [[ToolCall("get_service_status", {"name": "INVENTORY"})]]
    assert partial_credit(trial("service-status-inventory", calls=calls), plan).value == 1.0
    calls = [[ToolCall("get_service_status", {"name": "checkout"})]]
    assert partial_credit(trial("service-status-inventory", calls=calls), plan).value == 0.0


def test_the_figures():
    assert f1([], [], same) == (1.0, 1.0, 1.0)
    assert f1([A, B], [A, C], same) == (0.5, 0.5, 0.5)
    assert f1([A], [], same) == (0.0, 0.0, 0.0)
    assert edit_distance([A, B, C], [A, C], same) == 1 / 3
    assert edit_distance([A], [B], same) == 1.0
    assert edit_distance([], [], same) == 0.0


def _record(scores: dict[str, Score], status: str = "passed") -> TrialRecord:
    """A trial every other scorer passed (the gate metric at 1.0)."""
    passing = {name: Score(outcome="pass", value=1.0) for name in registered()}
    return TrialRecord(
        case_id="c", category="happy", repeat=1, status=status, scores=passing | scores
    )


def test_it_is_reported_beside_the_gate_and_never_decides_it():
    assert registered()["partial_credit"].gate == "report"
    low = Score(outcome="pass", value=0.5, figures={"f1": 0.5, "edit_distance": 0.5})
    agg = aggregate([("c", "happy")], [_record({"partial_credit": low})], 1, 1.0)
    assert agg.cases[0].gate is True and agg.cases[0].means["partial_credit"] == 0.5
    # even a failing report score (a looping agent fails every scorer) does not gate
    failed = Score(outcome="fail", value=0.0)
    agg = aggregate([("c", "happy")], [_record({"partial_credit": failed})], 1, 1.0)
    assert agg.cases[0].gate is True


def test_the_reports_average_the_figures_per_case_and_category():
    from ops_eval.outputs.report import partial_figures

    class Rec:  # the only field partial_figures reads
        trials = [
            _record(
                {"partial_credit": Score(outcome="pass", figures={"f1": 1.0, "edit_distance": 0.0})}
            ),
            _record(
                {"partial_credit": Score(outcome="pass", figures={"f1": 0.8, "edit_distance": 0.5})}
            ),
        ]

    got = partial_figures(Rec())  # type: ignore[arg-type]
    assert got["case:c"] == got["category:happy"] == {"f1": "0.90", "edit_distance": "0.25"}
