"""The statistics module against published reference values (each test cites its source), its
edge cases (n = 0, all pass, all fail, k > n), and its refusals."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ops_eval.base.stats import (
    StatsError,
    cohen_kappa,
    mcnemar_exact,
    newcombe_diff,
    newcombe_paired,
    pass_hat_k,
    rate,
    upper_rate,
    wilson,
)


def _close(got: tuple[float, ...], want: tuple[float, ...], places: int = 4) -> None:
    assert tuple(round(x, places) for x in got) == pytest.approx(want, abs=10**-places)


# Newcombe (1998a), Statistics in Medicine 17:857-872, Table I, method 3 (Wilson score, no
# continuity correction).
@pytest.mark.parametrize(
    ("k", "n", "low", "high"),
    [
        (81, 263, 0.2553, 0.3662),
        (15, 148, 0.0624, 0.1605),
        (0, 20, 0.0, 0.1611),
        (1, 29, 0.0061, 0.1718),
    ],
)
def test_wilson_matches_newcombe_1998_table_one(k, n, low, high):
    _close(wilson(k, n), (low, high))


# Newcombe (1998b), Statistics in Medicine 17:873-890, Table II, method 10 (hybrid score).
@pytest.mark.parametrize(
    ("k1", "n1", "k2", "n2", "low", "high"),
    [
        (56, 70, 48, 80, 0.0524, 0.3339),
        (9, 10, 3, 10, 0.1705, 0.8090),
        (6, 7, 2, 7, 0.0582, 0.8062),
        (5, 56, 0, 29, -0.0381, 0.1926),
        (0, 10, 0, 20, -0.1611, 0.2775),
        (0, 10, 0, 10, -0.2775, 0.2775),
        (10, 10, 0, 20, 0.6791, 1.0),
        (10, 10, 0, 10, 0.6075, 1.0),
    ],
)
def test_newcombe_diff_matches_newcombe_1998_table_two(k1, n1, k2, n2, low, high):
    estimate, lo, hi = newcombe_diff(k1, n1, k2, n2)
    assert estimate == pytest.approx(k1 / n1 - k2 / n2)
    _close((lo, hi), (low, high))


def test_newcombe_diff_matches_fagerland_2017_perondi_example():
    # Fagerland, Lydersen & Laake (2017), ch. 4: Perondi et al. (2004), 7/34 vs 1/34:
    # estimate 0.1765, 95% CI 0.0189 to 0.3404.
    _close(newcombe_diff(7, 34, 1, 34), (0.1765, 0.0189, 0.3404))


def test_newcombe_paired_matches_fagerland_2017_cavo_example():
    # Fagerland, Lydersen & Laake (2017), ch. 8: Cavo et al. (2012), pairs [[59, 6], [16, 80]]:
    # Newcombe square-and-add estimate -0.0621, 95% CI -0.1186 to -0.0046.
    _close(newcombe_paired(59, 6, 16, 80), (-0.0621, -0.1186, -0.0046))


def test_newcombe_paired_is_narrower_than_independent_when_pairs_agree():
    # The same margins analysed as independent samples ignore the positive correlation.
    _, lo_p, hi_p = newcombe_paired(40, 2, 8, 50)
    _, lo_i, hi_i = newcombe_diff(42, 100, 48, 100)
    assert hi_p - lo_p < hi_i - lo_i


def test_mcnemar_exact_matches_fagerland_2013_bentur_example():
    # Fagerland, Lydersen & Laake (2013), BMC Med Res Methodol 13:91: Bentur et al. (2009),
    # b = 1, c = 7: exact conditional p = 0.070.
    assert round(mcnemar_exact(1, 7), 3) == 0.070
    assert mcnemar_exact(7, 1) == mcnemar_exact(1, 7)


def test_mcnemar_exact_matches_fagerland_2017_cavo_example():
    # Fagerland, Lydersen & Laake (2017), ch. 8: Cavo et al. (2012), b = 6, c = 16: p = 0.052.
    assert round(mcnemar_exact(6, 16), 3) == 0.052


def test_mcnemar_exact_edges():
    assert mcnemar_exact(0, 0) == 1.0
    assert mcnemar_exact(3, 3) == 1.0  # never above 1
    assert mcnemar_exact(0, 2) == 0.5  # 2 * (1/4)
    assert mcnemar_exact(0, 13) == pytest.approx(2 / 2**13)


def test_cohen_kappa_matches_the_textbook_two_by_two():
    # The worked 2x2 example of Cohen's kappa in common use (e.g. the Wikipedia article):
    # 20 yes/yes, 5 yes/no, 10 no/yes, 15 no/no: po = 0.70, pe = 0.50, kappa = 0.40.
    a = ["y"] * 25 + ["n"] * 25
    b = ["y"] * 20 + ["n"] * 5 + ["y"] * 10 + ["n"] * 15
    assert cohen_kappa(a, b) == pytest.approx(0.4)


@pytest.mark.parametrize(
    ("yy", "yn", "ny", "nn", "kappa"),
    [(45, 15, 25, 15, 0.1304), (25, 35, 5, 35, 0.2593)],  # equal po = 0.60, unequal marginals
)
def test_cohen_kappa_hand_computed_marginals(yy, yn, ny, nn, kappa):
    a = ["y"] * (yy + yn) + ["n"] * (ny + nn)
    b = ["y"] * yy + ["n"] * yn + ["y"] * ny + ["n"] * nn
    assert round(cohen_kappa(a, b), 4) == kappa


def test_cohen_kappa_perfect_and_chance():
    assert cohen_kappa([1, 0, 1, 0], [1, 0, 1, 0]) == pytest.approx(1.0)
    assert cohen_kappa([1, 1, 0, 0], [1, 0, 1, 0]) == pytest.approx(0.0)


@pytest.mark.parametrize(
    ("a", "b", "message"),
    [
        ([], [], "at least one item"),
        ([1, 0], [1], "2 and 1 items"),
        (["pass"] * 5, ["pass"] * 5, "undefined"),
    ],
)
def test_cohen_kappa_refuses_what_has_no_kappa(a, b, message):
    with pytest.raises(StatsError, match=message):
        cohen_kappa(a, b)


def test_pass_hat_k_is_the_unbiased_estimator():
    # C(c, k) / C(n, k), Yao et al. (2024): hand-computed values.
    assert pass_hat_k(4, 2, 2) == pytest.approx(1 / 6)
    assert pass_hat_k(5, 4, 2) == pytest.approx(6 / 10)
    assert pass_hat_k(20, 20, 5) == 1.0  # all pass
    assert pass_hat_k(20, 0, 1) == 0.0  # all fail
    assert pass_hat_k(5, 3, 1) == pytest.approx(3 / 5)  # pass^1 is the pass rate
    assert pass_hat_k(3, 3, 4) is None  # k > n: not estimable
    assert pass_hat_k(0, 0, 1) is None


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: wilson(5, 3), "k \\(5\\) is more than n \\(3\\)"),
        (lambda: wilson(-1, 3), "k must not be negative"),
        (lambda: wilson(1.5, 3), "whole number"),
        (lambda: wilson(1, 3, z=0), "z must be a positive number"),
        (lambda: newcombe_diff(3, 2, 1, 1), "k1 \\(3\\) is more than n1 \\(2\\)"),
        (lambda: newcombe_paired(1, -1, 0, 0), "b must not be negative"),
        (lambda: pass_hat_k(3, 4, 1), "c \\(4\\) is more than n \\(3\\)"),
        (lambda: pass_hat_k(3, 1, 0), "k must be at least 1"),
        (lambda: mcnemar_exact(True, 1), "whole number"),
    ],
)
def test_impossible_counts_are_refused_precisely(call, message):
    with pytest.raises(StatsError, match=message):
        call()


def test_empty_samples_have_defined_answers():
    assert wilson(0, 0) == (0.0, 1.0)
    assert newcombe_paired(0, 0, 0, 0) == (0.0, -1.0, 1.0)
    estimate, low, high = newcombe_diff(0, 0, 3, 3)
    assert estimate == -0.5 and low == -1.0  # the empty side is taken as 1/2, known to (0, 1)
    assert -1.0 <= low <= estimate <= high <= 1.0


def test_all_pass_and_all_fail_keep_their_exact_bounds():
    assert wilson(13, 13)[1] == 1.0 and wilson(0, 13)[0] == 0.0
    _, low, high = newcombe_paired(13, 0, 0, 0)  # identical all-pass runs
    assert low < 0 < high


counts = st.integers(0, 60)


@given(counts, counts, counts, counts)
def test_paired_interval_is_ordered_finite_and_holds_its_estimate(a, b, c, d):
    estimate, low, high = newcombe_paired(a, b, c, d)
    assert all(math.isfinite(x) for x in (estimate, low, high))
    assert -1.0 <= low <= estimate <= high <= 1.0


@given(st.integers(0, 80), st.integers(0, 80), st.data())
def test_independent_interval_is_ordered_and_finite(n1, n2, data):
    k1, k2 = data.draw(st.integers(0, n1)), data.draw(st.integers(0, n2))
    estimate, low, high = newcombe_diff(k1, n1, k2, n2)
    assert all(math.isfinite(x) for x in (estimate, low, high))
    assert -1.0 <= low <= estimate <= high <= 1.0


def test_a_bool_z_is_refused_like_a_bool_count():
    with pytest.raises(StatsError, match="z must be a positive number"):
        wilson(1, 2, True)
    with pytest.raises(StatsError, match="z must be a positive number"):
        newcombe_diff(1, 2, 1, 2, False)


def test_a_huge_integer_z_is_refused_not_an_overflow():
    with pytest.raises(StatsError, match="z must be a positive number"):
        wilson(1, 2, 10**400)


HUGE = 10**400  # beyond the largest float


@pytest.mark.parametrize(
    ("call", "names"),
    [
        (lambda: wilson(HUGE, HUGE), "k = about 10\\^400, n = about 10\\^400"),
        (lambda: wilson(1, 10**200), "k = 1, n = about 10\\^200"),  # n * n overflows
        (lambda: newcombe_diff(1, HUGE, 1, 2), "k1 = 1, n1 = about 10\\^400, k2 = 1, n2 = 2"),
        (lambda: newcombe_paired(HUGE, 1, 1, 1), "a = about 10\\^400, b = 1, c = 1, d = 1"),
        # the product of the margins overflows
        (lambda: newcombe_paired(10**80, 1, 1, 10**80), "a = about 10\\^80, b = 1, c = 1, d"),
        (lambda: upper_rate(HUGE, HUGE), "k = about 10\\^400, n = about 10\\^400"),
    ],
)
def test_counts_too_large_for_a_float_are_refused_precisely(call, names):
    with pytest.raises(StatsError, match=f"too large for floating-point arithmetic \\({names}"):
        call()


def test_a_huge_negative_count_is_refused_without_printing_all_its_digits():
    with pytest.raises(StatsError, match="k must not be negative, got about -10\\^5000"):
        wilson(-(10**5000), 3)


def test_numpy_integers_are_whole_numbers():
    np = pytest.importorskip("numpy")
    assert wilson(np.int64(81), np.int64(263)) == wilson(81, 263)
    assert newcombe_diff(np.int32(7), np.uint16(34), np.int8(1), np.int64(34)) == newcombe_diff(
        7, 34, 1, 34
    )
    assert newcombe_paired(*map(np.int64, (59, 6, 16, 80))) == newcombe_paired(59, 6, 16, 80)
    assert pass_hat_k(np.int64(5), np.int64(4), np.int64(2)) == pass_hat_k(5, 4, 2)
    assert mcnemar_exact(np.int64(1), np.int64(7)) == mcnemar_exact(1, 7)
    assert rate(np.int64(3), np.int64(4)) == rate(3, 4)


def test_numpy_integers_do_not_wrap_around():
    # a * d in int64 would wrap past 2**63; the counts are Python integers before any arithmetic
    np = pytest.importorskip("numpy")
    big = np.int64(2**40)
    assert newcombe_paired(big, np.int64(1), np.int64(1), big) == newcombe_paired(
        2**40, 1, 1, 2**40
    )


@pytest.mark.parametrize("value", ["np.True_", "np.float64(2.0)", "2.0", "True", "'3'", "None"])
def test_what_is_not_an_integer_is_still_refused(value):
    np = pytest.importorskip("numpy")
    bad = eval(value, {"np": np})  # noqa: S307 (a fixed list above)
    with pytest.raises(StatsError, match="k must be a whole number"):
        wilson(bad, 3)


def test_cohen_kappa_accepts_any_iterable():
    a = ["y"] * 25 + ["n"] * 25
    b = ["y"] * 20 + ["n"] * 5 + ["y"] * 10 + ["n"] * 15
    assert cohen_kappa(iter(a), iter(b)) == pytest.approx(0.4)
    assert cohen_kappa((x for x in a), tuple(b)) == pytest.approx(0.4)
    with pytest.raises(StatsError, match="2 and 1 items"):
        cohen_kappa(iter([1, 0]), iter([1]))


@pytest.mark.parametrize("nan", [float("nan"), "decimal"])
def test_cohen_kappa_refuses_a_label_that_does_not_equal_itself(nan):
    if nan == "decimal":
        from decimal import Decimal

        nan = Decimal("NaN")
    with pytest.raises(StatsError, match="rater_b's item 3 .* does not equal itself"):
        cohen_kappa([1, 0, 1], [1, 0, nan])
    with pytest.raises(StatsError, match="rater_a's item 1 .* does not equal itself"):
        cohen_kappa([nan, 0, 1], [1, 0, 1])
