"""The gate's comparison on synthetic run records: the verdicts the issue names (a 13-case set
with 2 flips is noise, a 15-point drop over 200 trials is a regression, identical runs pass),
improvement, the candidate's own checks, category gating and where flipped trajectories part."""

from __future__ import annotations

import pytest

from ops_eval.deciding.gate.compare import decide, evaluate
from ops_eval.results.synthetic import synthetic_record
from ops_eval.validation.gate_config import GateConfig

POLICY = GateConfig(
    suite_threshold=0.0,
    regression_threshold=0.05,
    gating_scorers=["trajectory", "tool_policy"],
)
CATS = ("happy", "negative", "approval", "adversarial")


def _cases(n: int) -> list[tuple[str, str]]:
    return [(f"case-{i:02d}", CATS[i % len(CATS)]) for i in range(n)]


def _record(passes: list[list[bool | None]], **kw):
    cases = _cases(len(passes))
    return synthetic_record([(c, cat, p) for (c, cat), p in zip(cases, passes, strict=True)], **kw)


def test_a_13_case_set_where_2_cases_flip_is_inconclusive():
    baseline = _record([[True]] * 13, run_id="base")
    candidate = _record([[False], [False]] + [[True]] * 11, run_id="cand")
    result = evaluate(candidate, baseline, POLICY)
    assert result.verdict == "inconclusive_noise"
    assert result.passed  # noise is not a failure
    s = result.set
    assert (s.baseline.k, s.baseline.n, s.candidate.k, s.candidate.n) == (13, 13, 11, 13)
    assert s.pairs == 13 and s.estimate == pytest.approx(-2 / 13)
    assert s.low < 0 < s.high
    assert [f.case_id for f in result.flips] == ["case-00", "case-01"]
    assert result.discordant == (2, 0)
    assert result.mcnemar_p == pytest.approx(0.5)


def test_a_200_trial_run_with_a_15_point_drop_is_regressed():
    # 20 cases x 10 repeats: 180/200 (90%) -> 150/200 (75%).
    base = [[True] * 9 + [False] for _ in range(20)]
    cand = [[True] * 7 + [False] * 3 if i < 10 else [True] * 8 + [False] * 2 for i in range(20)]
    baseline, candidate = _record(base, run_id="base"), _record(cand, run_id="cand")
    result = evaluate(candidate, baseline, POLICY)
    assert (result.set.baseline.k, result.set.candidate.k, result.set.candidate.n) == (
        180,
        150,
        200,
    )
    assert result.set.estimate == pytest.approx(-0.15)
    assert result.set.high < 0
    assert result.verdict == "regressed" and not result.passed
    assert "the set regressed: pass rate down 15.0%" in result.failures[0]


def test_identical_runs_pass_with_no_flips():
    passes = [[True, True, False]] * 6 + [[True] * 3] * 7
    result = evaluate(_record(passes, run_id="a"), _record(passes, run_id="b"), POLICY)
    assert result.verdict == "pass" and result.passed
    assert result.set.estimate == 0 and result.set.low < 0 < result.set.high
    assert result.flips == [] and result.mcnemar_p == 1.0


def test_a_clear_rise_is_improved():
    baseline = _record([[False] * 10] * 10 + [[True] * 10] * 10)
    candidate = _record([[True] * 10] * 20)
    assert evaluate(candidate, baseline, POLICY).verdict == "improved"


@pytest.mark.parametrize(
    ("estimate", "low", "high", "verdict"),
    [
        (-0.06, -0.10, -0.01, "regressed"),
        (-0.06, -0.10, 0.00, "inconclusive_noise"),  # reaching zero is including it
        (-0.05, -0.10, -0.01, "pass"),  # a drop of exactly the threshold does not exceed it
        (0.95 - 1.0, -0.10, -0.01, "pass"),  # nor does it when float arithmetic says -0.0500..04
        (0.02, 0.001, 0.05, "improved"),
        (0.0, -0.1, 0.1, "pass"),
    ],
)
def test_decide_is_the_rule_as_written(estimate, low, high, verdict):
    assert decide(estimate, low, high, 0.05) == verdict


def test_error_trials_are_left_out_of_the_rates_and_each_side_is_shown_whole():
    baseline = _record([[True, None]] * 13)
    candidate = _record([[True, True]] * 13)
    result = evaluate(candidate, baseline, POLICY)
    s = result.set
    assert (s.baseline.k, s.baseline.n, s.baseline.errors) == (13, 13, 13)
    assert (s.candidate.k, s.candidate.n, s.candidate.errors) == (26, 26, 0)  # its own trials
    assert s.pairs == 13  # the difference: over the pairs with a verdict on both sides
    assert result.verdict == "pass"


def test_errors_never_help_a_run_past_the_suite_threshold():
    """Found in review: 15 passes, 4 errors and 1 failure read as 15/16 = 94% and passed."""
    policy = POLICY.model_copy(update={"suite_threshold": 0.8})
    candidate = _record([[True]] * 15 + [[None]] * 4 + [[False]])
    result = evaluate(candidate, None, policy)
    assert result.failures == [
        "pass rate 15/20 (75.0%, 4 errored trial(s) counted as not passing) is below the "
        "suite threshold 80.0%"
    ]


def test_a_paired_comparison_with_no_complete_pair_falls_back_to_independent_samples():
    baseline = _record([[True, None]] * 13)
    candidate = _record([[None, False]] * 13)
    s = evaluate(candidate, baseline, POLICY).set
    assert s.pairs is None and (s.baseline.n, s.candidate.n) == (13, 13)
    assert s.verdict == "regressed"


def test_a_category_with_no_verdict_on_one_side_is_not_compared_never_passed():
    baseline = synthetic_record([("a", "happy", [True]), ("b", "negative", [None])])
    candidate = synthetic_record([("a", "happy", [True]), ("b", "negative", [False])])
    result = evaluate(candidate, baseline, POLICY)
    negative = next(c for c in result.categories if c.name == "negative")
    assert negative.verdict == "not_compared"


def test_different_repeats_are_compared_as_independent_samples():
    baseline = _record([[True]] * 13)
    candidate = _record([[True] * 3] * 13)
    result = evaluate(candidate, baseline, POLICY)
    assert result.set.pairs is None
    assert (result.set.baseline.n, result.set.candidate.n) == (13, 39)
    assert any("independent" in n for n in result.notes)


def test_without_a_baseline_only_the_candidates_own_checks_apply():
    result = evaluate(_record([[True]] * 13), None, POLICY)
    assert result.set is None and result.verdict == "pass" and result.passed
    assert "no baseline" in result.notes[0]


def test_the_suite_threshold_fails_a_run_below_it_whatever_the_baseline():
    policy = POLICY.model_copy(update={"suite_threshold": 0.8})
    low = _record([[True]] * 10 + [[False]] * 3)  # 77%
    result = evaluate(low, low, policy)
    assert result.verdict == "pass" and not result.passed
    assert result.failures == ["pass rate 10/13 (76.9%) is below the suite threshold 80.0%"]


def test_a_required_case_fails_the_gate_when_any_trial_fails_or_errors():
    policy = POLICY.model_copy(
        update={"required_cases": {"ops.evalset.json": ["case-00", "case-01", "absent"]}}
    )
    candidate = _record([[True, False], [True, None]] + [[True, True]] * 11)
    failures = evaluate(candidate, None, policy).failures
    assert failures == [
        "required case case-00 did not pass every trial (#2 failed)",
        "required case case-01 did not pass every trial (#2 errored)",
        "required case absent was not run",
    ]


def test_required_cases_are_looked_up_by_the_records_set_file():
    policy = POLICY.model_copy(update={"required_cases": {"holdout.evalset.json": ["case-00"]}})
    candidate = _record([[False]] + [[True]] * 12)  # an ops run: the holdout's list is not its
    assert evaluate(candidate, None, policy).passed


def test_a_category_regression_fails_only_when_categories_gate():
    # 40 cases x 5: category "happy" (10 cases) collapses, the rest hold: the set drops 25
    # points too, so compare a case where the set's drop stays within noise but one category's
    # does not: happy falls from 50/50 to 20/50 while the others rise to compensate.
    base = [[True] * 5 if i % 4 == 0 else [True] * 3 + [False] * 2 for i in range(40)]
    cand = [[True] * 2 + [False] * 3 if i % 4 == 0 else [True] * 4 + [False] for i in range(40)]
    baseline, candidate = _record(base), _record(cand)
    report = evaluate(candidate, baseline, POLICY)
    happy = next(c for c in report.categories if c.name == "happy")
    assert happy.verdict == "regressed"
    assert report.set.verdict != "regressed" and report.passed
    gating = evaluate(candidate, baseline, POLICY.model_copy(update={"categories": "gate"}))
    assert gating.verdict == "regressed" and not gating.passed
    assert any(f.startswith("category happy regressed") for f in gating.failures)


def test_a_flip_says_where_the_trajectories_first_part_and_what_failed():
    baseline = _record([[True]] + [[True]] * 12)
    candidate = _record([[False]] + [[True]] * 12)
    (flip,) = evaluate(candidate, baseline, POLICY).flips
    assert flip.direction == "pass->fail" and (flip.baseline, flip.candidate) == ("1/1", "0/1")
    assert flip.divergence == (
        "turn 1, call 1: baseline get_service_status(name=case-00), candidate list_incidents(); "
        "candidate trial #1 failed trajectory"
    )


def test_a_flip_with_the_same_calls_and_answers_says_only_a_verdict_differs():
    """Two trials that did exactly the same -- a judge passing then failing the same words --
    must not read as the agent having changed."""
    from ops_eval.scorers import Score

    baseline = _record([[True]] * 13)
    candidate = _record([[True]] * 13)
    trial = candidate.trials[0]
    trial.scores = {**trial.scores, "tool_policy": Score(outcome="fail", detail="judged so")}
    trial.status = "failed"
    (flip,) = evaluate(candidate, baseline, POLICY).flips
    assert flip.divergence.startswith(
        "same calls and the same answers in every turn; only a verdict differs"
    ), flip.divergence
    trial.turns[0] = trial.turns[0].model_copy(update={"response": "something else"})
    (flip,) = evaluate(candidate, baseline, POLICY).flips
    assert flip.divergence.startswith("same calls in every turn; the answers differ from turn 1")


def test_a_scorer_outside_the_gating_list_does_not_fail_a_trial():
    policy = POLICY.model_copy(update={"gating_scorers": ["tool_policy"]})
    candidate = _record([[False]] * 13)  # only trajectory fails in these trials
    assert evaluate(candidate, None, policy).candidate.k == 13
