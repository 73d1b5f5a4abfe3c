"""Aggregation: the per-case gate as ADK decides it, error trials and n/a scores out of every
denominator, and no verdict where the gate metric says nothing."""

from __future__ import annotations

from trial_records import trial

from ops_eval import Score, aggregate


def test_the_trajectory_mean_gates_each_case_as_adk_does():
    half = Score(outcome="fail", value=0.5)
    trials = [trial("a"), trial("a", "failed", 2, trajectory=half), trial("b")]
    agg = aggregate([("a", "happy"), ("b", "happy")], trials, repeats=2, threshold=1.0)
    assert [c.gate for c in agg.cases] == [False, True]
    assert agg.cases[0].means == {"trajectory": 0.75}
    assert agg.cases[0].pass_hat_k == 0.0
    passing = aggregate([("a", "happy")], trials[:2], repeats=2, threshold=0.75)
    assert passing.cases[0].gate is True


def test_every_other_scorer_must_pass_in_every_trial():
    trials = [trial("a"), trial("a", "failed", 2, facts=Score(outcome="fail"))]
    agg = aggregate([("a", "happy")], trials, repeats=2, threshold=1.0)
    assert agg.cases[0].gate is False


def test_errors_and_not_applicable_scores_leave_the_denominators():
    na = Score(outcome="n/a")
    trials = [trial("a"), trial("a", "error", 2), trial("a", repeat=3, end_state=na)]
    agg = aggregate([("a", "happy")], trials, repeats=3, threshold=1.0)
    (case,) = agg.cases
    assert (case.errors, case.rate.passed, case.rate.n, case.gate) == (1, 2, 2, True)
    end_state = next(g for g in agg.scorers if g.name == "end_state")
    assert (end_state.rate.passed, end_state.rate.n) == (1, 1)


def test_a_case_whose_gate_metric_never_applied_has_no_verdict():
    """Fixed in the reshape before it could bite: n/a trajectories must not pass a case on the
    other scorers alone."""
    na = Score(outcome="n/a")
    agg = aggregate([("a", "happy")], [trial("a", trajectory=na)], repeats=1, threshold=1.0)
    assert agg.cases[0].gate is None
    failing = [trial("a", trajectory=na, facts=Score(outcome="fail"))]
    assert aggregate([("a", "happy")], failing, 1, 1.0).cases[0].gate is False
