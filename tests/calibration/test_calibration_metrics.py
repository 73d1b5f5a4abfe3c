"""The calibration maths against confusion matrices worked by hand (the arithmetic is in the
comments), the correlation against a hand computation, the undefined cases, and the target."""

from __future__ import annotations

import math

import pytest

from ops_eval.base.exits import OpsEvalError
from ops_eval.judging.calibration.metrics import Graded, measure, pearson, shortfalls
from ops_eval.judging.calibration.target import TARGET, Target

P, F = True, False


def graded(human: list[bool], judge: list[bool | None], lengths: list[int] | None = None):
    lengths = lengths or [100] * len(human)
    return [Graded(h, j, n) for h, j, n in zip(human, judge, lengths, strict=True)]


def test_matrix_one_mixed_errors_both_ways():
    # 10 items, 6 labelled pass and 4 fail.
    # judge:  human pass -> P P P P P F   (tp 5, fn 1)
    #         human fail -> P F F F       (fp 1, tn 3)
    # agreement (5 + 3)/10 = 0.8; Wilson 95%: p = 0.8, z^2 = 3.8415, denom = 1.38415,
    #   centre = (0.8 + 0.19207)/1.38415 = 0.71673, half = 1.95996 * sqrt(0.016 + 0.0096037)
    #   / 1.38415 = 0.22658 -> (0.4902, 0.9433)
    # kappa: po = 0.8; human pass 6/10, judge pass (5 + 1)/10 = 0.6;
    #   pe = 0.6*0.6 + 0.4*0.4 = 0.52; kappa = (0.8 - 0.52)/(1 - 0.52) = 0.28/0.48 = 0.58333
    # sensitivity 5/6 = 0.8333, specificity 3/4 = 0.75
    m = measure(graded([P] * 6 + [F] * 4, [P, P, P, P, P, F] + [P, F, F, F]))
    assert (m.tp, m.fn, m.fp, m.tn, m.errors) == (5, 1, 1, 3, 0)
    assert (m.agreement.k, m.agreement.n) == (8, 10)
    assert m.agreement.low == pytest.approx(0.4902, abs=1e-4)
    assert m.agreement.high == pytest.approx(0.9433, abs=1e-4)
    assert m.kappa == pytest.approx(0.28 / 0.48)
    assert (m.sensitivity.k, m.sensitivity.n) == (5, 6)
    assert (m.specificity.k, m.specificity.n) == (3, 4)
    assert m.agreement.show() == "8/10 = 0.80 (95% CI 0.49–0.94)"
    # 0.8 < 0.85 and 0.583 < 0.6: both reasons, each with its figure
    assert shortfalls(m, TARGET, None) == [
        "agreement 8/10 = 0.80 is below 0.85",
        "kappa 0.58 is below 0.60",
    ]


def test_matrix_two_a_judge_that_passes_everything():
    # 6 pass, 4 fail; the judge passes all 10: tp 6, fn 0, fp 4, tn 0.
    # agreement 6/10 -- the share of pass labels; kappa: po = 0.6, judge pass 1.0,
    #   pe = 0.6*1.0 + 0.4*0.0 = 0.6, kappa = (0.6 - 0.6)/(1 - 0.6) = 0
    # sensitivity 6/6 = 1, specificity 0/4 = 0; the judge is constant, so r is undefined.
    m = measure(graded([P] * 6 + [F] * 4, [P] * 10, [10, 20, 30, 40, 50, 60, 70, 80, 90, 99]))
    assert (m.tp, m.fn, m.fp, m.tn) == (6, 0, 4, 0)
    assert (m.agreement.k, m.agreement.n) == (6, 10)
    assert m.kappa == pytest.approx(0.0)
    assert (m.sensitivity.k, m.sensitivity.n, m.sensitivity.rate) == (6, 6, 1.0)
    assert (m.specificity.k, m.specificity.n, m.specificity.rate) == (0, 4, 0.0)
    assert m.verbosity_r is None
    assert m.verbosity_r_human is not None  # the labels do vary with length here
    assert m.judge_passes.k == m.judge_passes.n == 10


def test_matrix_three_judge_errors_count_against_agreement_only():
    # 3 pass, 3 fail. judge: P, error, F | F, F, P
    # with a verdict (5): tp 1 (item 1), fn 1 (item 3), fp 1 (item 6), tn 2 (items 4, 5)
    # agreement counts the error as a disagreement: (1 + 2)/6 = 0.5
    # kappa over the 5 with a verdict: po = 3/5 = 0.6; human pass 2/5, judge pass 2/5;
    #   pe = 0.4*0.4 + 0.6*0.6 = 0.52; kappa = 0.08/0.48 = 0.16667
    # sensitivity 1/2, specificity 2/3
    m = measure(graded([P, P, P, F, F, F], [P, None, F, F, F, P]))
    assert (m.tp, m.fn, m.fp, m.tn, m.errors) == (1, 1, 1, 2, 1)
    assert (m.agreement.k, m.agreement.n) == (3, 6)
    assert m.kappa == pytest.approx(0.08 / 0.48)
    assert (m.sensitivity.k, m.sensitivity.n) == (1, 2)
    assert (m.specificity.k, m.specificity.n) == (2, 3)
    reasons = shortfalls(m, TARGET, None)
    assert reasons[0] == (
        "1 of 6 items got no verdict (judge errors): a judge that errs is not certified"
    )


def test_matrix_four_perfect_and_inverted_judges():
    # perfect: 4 pass, 4 fail, all agree -> 8/8, kappa (1 - 0.5)/(1 - 0.5) = 1
    perfect = measure(graded([P] * 4 + [F] * 4, [P] * 4 + [F] * 4))
    assert (perfect.agreement.k, perfect.kappa) == (8, pytest.approx(1.0))
    assert shortfalls(perfect, TARGET, None) == []
    # inverted: every verdict the opposite -> 0/8, po = 0, pe = 0.5, kappa = -0.5/0.5 = -1
    inverted = measure(graded([P] * 4 + [F] * 4, [F] * 4 + [P] * 4))
    assert (inverted.agreement.k, inverted.kappa) == (0, pytest.approx(-1.0))


def test_even_a_perfect_judge_misses_on_a_set_that_certifies_nothing_or_with_an_error():
    perfect = measure(graded([P] * 4 + [F] * 4, [P] * 4 + [F] * 4))
    assert shortfalls(perfect, TARGET, "8 items, fewer than the 40") == [
        "the set certifies nothing: 8 items, fewer than the 40"
    ]
    one_error = measure(graded([P] * 4 + [F] * 5, [P] * 4 + [F] * 4 + [None]))
    assert one_error.kappa == pytest.approx(1.0)  # the 8 with a verdict all agree
    assert any("got no verdict" in r for r in shortfalls(one_error, TARGET, None))


def test_point_biserial_correlation_against_a_hand_computation():
    # lengths 1, 2, 3, 4; judge fail, fail, pass, pass (0, 0, 1, 1)
    # means 2.5 and 0.5; sxy = (-1.5)(-0.5) + (-0.5)(-0.5) + (0.5)(0.5) + (1.5)(0.5) = 2.0
    # sxx = 2.25 + 0.25 + 0.25 + 2.25 = 5; syy = 4 * 0.25 = 1; r = 2/sqrt(5) = 0.894427
    assert pearson([1, 2, 3, 4], [0, 0, 1, 1]) == pytest.approx(2 / math.sqrt(5))
    # through measure: the judge passes the two longest answers, the labels are 1, 0, 1, 0
    # (pass, fail, pass, fail): human r = sxy / sqrt(5 * 1) with sxy = (-1.5)(0.5) +
    #   (-0.5)(-0.5) + (0.5)(0.5) + (1.5)(-0.5) = -0.75 + 0.25 + 0.25 - 0.75 = -1.0
    m = measure(graded([P, F, P, F], [F, F, P, P], [1, 2, 3, 4]))
    assert m.verbosity_r == pytest.approx(2 / math.sqrt(5))
    assert m.verbosity_r_human == pytest.approx(-1 / math.sqrt(5))


def test_correlation_is_none_where_it_is_undefined():
    assert pearson([5], [1]) is None  # one pair
    assert pearson([], []) is None
    assert pearson([3, 3, 3], [0, 1, 1]) is None  # every answer the same length
    assert pearson([1, 2, 3], [1, 1, 1]) is None  # a judge that passed everything
    with pytest.raises(ValueError):
        pearson([1, 2], [1])


def test_kappa_is_undefined_not_a_number_when_chance_agreement_is_certain():
    # every item errored: nothing to compute kappa on
    none = measure(graded([P, F], [None, None]))
    assert none.kappa is None and none.kappa_undefined == "no item has a verdict"
    assert (none.agreement.k, none.agreement.n, none.errors) == (0, 2, 2)
    assert none.sensitivity.n == none.specificity.n == 0 and none.sensitivity.rate is None
    # the only items with a verdict are both human pass and judged pass: pe = 1
    certain = measure(graded([P, P, F], [P, P, None]))
    assert certain.kappa is None and "undefined" in (certain.kappa_undefined or "")
    assert any(r.startswith("kappa is undefined") for r in shortfalls(certain, TARGET, None))


def test_exactly_the_target_meets_it():
    # 17 of 20 agree = 0.85 exactly: tp 9, fn 1, fp 2, tn 8 (10 pass, 10 fail)
    # kappa: po 0.85; human 0.5, judge (9 + 2)/20 = 0.55; pe = 0.5*0.55 + 0.5*0.45 = 0.5
    #   kappa = 0.35/0.5 = 0.7
    m = measure(graded([P] * 10 + [F] * 10, [P] * 9 + [F] + [P] * 2 + [F] * 8))
    assert m.agreement.rate == pytest.approx(0.85) and m.kappa == pytest.approx(0.7)
    assert shortfalls(m, TARGET, None) == []
    assert shortfalls(m, Target(agreement=0.85, kappa=0.7), None) == []
    assert shortfalls(m, Target(agreement=0.9, kappa=0.6), None) == [
        "agreement 17/20 = 0.85 is below 0.90"
    ]


def test_flags_raise_the_target_and_never_lower_it():
    assert Target(agreement=0.85, kappa=0.6) == TARGET
    assert TARGET.raised() == TARGET
    assert TARGET.raised(agreement=0.9) == Target(agreement=0.9, kappa=0.6)
    assert TARGET.raised(kappa=0.8) == Target(agreement=0.85, kappa=0.8)
    assert TARGET.raised(agreement=0.85, kappa=0.6) == TARGET  # equal is not lower
    for low in ({"agreement": 0.84}, {"kappa": 0.5}, {"agreement": 1.01}):
        with pytest.raises(OpsEvalError) as info:
            TARGET.raised(**low)
        assert info.value.code == 2 and "may only raise" in str(info.value)
