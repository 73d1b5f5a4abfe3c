"""Small-sample statistics, so every rate is printed with its denominator and an interval, and two
runs are compared with an interval of their difference rather than a point drop.

Public: the gate, the reports, the red team and the judge calibration all use these functions
(standard library only), and anyone may; `Rate`, every rate as one (pydantic) model, is here
too. Each function names its source; `tests/base/test_stats.py` checks each against the published
worked examples. Counts are whole numbers of any integral
type (`operator.index`: int, numpy.int64, ...), never a bool or a float. Inputs that have no
answer -- counts too large for floating-point arithmetic among them -- raise `StatsError` (a
ValueError) with the reason; nothing returns NaN.
"""

from __future__ import annotations

import math
import numbers
import operator
from collections.abc import Hashable, Iterable, Iterator
from contextlib import contextmanager
from math import comb

from pydantic import ConfigDict

from .strict import Strict

__all__ = [
    "Z95",
    "Z95_ONE_SIDED",
    "Rate",
    "StatsError",
    "cohen_kappa",
    "mcnemar_exact",
    "newcombe_diff",
    "newcombe_paired",
    "pass_hat_k",
    "rate",
    "upper_rate",
    "wilson",
]

Z95 = 1.959963984540054  # two-sided 95%
Z95_ONE_SIDED = 1.6448536269514722


class StatsError(ValueError):
    """Counts that describe no sample (negative, more successes than trials, too large for
    floating-point arithmetic) or a statistic that is undefined for them; the message says
    which."""


def _show(value: object) -> str:
    """A value for a message; an integer too long to print in full (Python refuses to print
    one of over 4,300 digits) by its order of magnitude."""
    if isinstance(value, int) and value.bit_length() > 64:
        digits = int(value.bit_length() * math.log10(2))
        return f"about {'-' if value < 0 else ''}10^{digits}"
    return repr(value)


def _whole(name: str, value: object) -> int:
    """A count as a Python int: any integral type (int, numpy.int64, ...) through
    `operator.index`, never a bool or a float. Python ints, so no arithmetic wraps around."""
    if isinstance(value, bool):
        raise StatsError(f"{name} must be a whole number, not {value!r}")
    try:
        count = operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        raise StatsError(f"{name} must be a whole number, not {_show(value)}") from None
    if count < 0:
        raise StatsError(f"{name} must not be negative, got {_show(count)}")
    return count


def _counts(**named: object) -> list[int]:
    return [_whole(name, value) for name, value in named.items()]


def _proportion(k: object, n: object, k_name: str = "k", n_name: str = "n") -> tuple[int, int]:
    k, n = _counts(**{k_name: k, n_name: n})
    if k > n:
        raise StatsError(f"{k_name} ({_show(k)}) is more than {n_name} ({_show(n)})")
    return k, n


def _z(z: object) -> float:
    if isinstance(z, bool) or not isinstance(z, numbers.Real):
        raise StatsError(f"z must be a positive number, got {z!r}")
    try:
        value = float(z)
    except OverflowError:
        raise StatsError(f"z must be a positive number, got {_show(z)}") from None
    if not (math.isfinite(value) and value > 0):
        raise StatsError(f"z must be a positive number, got {z!r}")
    return value


@contextmanager
def _floats(**named: int) -> Iterator[None]:
    """Counts whose arithmetic overflows a float (beyond about 1.8e308, or whose products are)
    are a StatsError naming them, not an OverflowError."""
    try:
        yield
    except OverflowError:
        shown = ", ".join(f"{name} = {_show(value)}" for name, value in named.items())
        raise StatsError(f"counts too large for floating-point arithmetic ({shown})") from None


def _wilson(k: int, n: int, z: float) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    # k == 0 and k == n are exact bounds; rounding must not move them off 0 and 1.
    low = 0.0 if k == 0 else max(0.0, centre - half)
    high = 1.0 if k == n else min(1.0, centre + half)
    return low, high


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for k successes in n trials, in 0..1.

    Wilson, E. B. (1927). Probable inference, the law of succession, and statistical inference.
    JASA 22, 209-212; method 3 of Newcombe (1998a), Statistics in Medicine 17, 857-872, whose
    Table I gives the reference values. n == 0 has no information: (0, 1).
    """
    k, n = _proportion(k, n)
    zf = _z(z)
    with _floats(k=k, n=n):
        return _wilson(k, n, zf)


def newcombe_diff(k1: int, n1: int, k2: int, n2: int, z: float = Z95) -> tuple[float, float, float]:
    """(estimate, low, high) for p1 - p2 from two independent samples: Newcombe's hybrid score
    interval, method 10 of Newcombe, R. G. (1998b). Interval estimation for the difference
    between independent proportions: comparison of eleven methods. Statistics in Medicine 17,
    873-890 (worked examples in its Table II). Each side's Wilson limits are squared and added.

    An empty sample carries no information: its Wilson interval is (0, 1) and its point estimate
    is taken as 0.5, so the difference's interval is wide rather than undefined.
    """
    k1, n1 = _proportion(k1, n1, "k1", "n1")
    k2, n2 = _proportion(k2, n2, "k2", "n2")
    zf = _z(z)
    with _floats(k1=k1, n1=n1, k2=k2, n2=n2):
        p1 = k1 / n1 if n1 else 0.5
        p2 = k2 / n2 if n2 else 0.5
        l1, u1 = _wilson(k1, n1, zf)
        l2, u2 = _wilson(k2, n2, zf)
        d = p1 - p2
        low = d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)
        high = d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
    return d, max(-1.0, low), min(1.0, high)


def newcombe_paired(a: int, b: int, c: int, d: int, z: float = Z95) -> tuple[float, float, float]:
    """(estimate, low, high) for p1 - p2 when both proportions are measured on the same items.

    The 2x2 table of pairs: `a` passed in both, `b` passed only in the first, `c` passed only in
    the second, `d` failed in both; p1 = (a+b)/n, p2 = (a+c)/n. Method 10 of Newcombe, R. G.
    (1998c). Improved confidence intervals for the difference between binomial proportions based
    on paired data. Statistics in Medicine 17, 2635-2650: the independent square-and-add
    interval corrected by phi, the correlation of the pairs (reduced by n/2 when positive, and 0
    when a margin is empty). Reference values: Fagerland, Lydersen & Laake (2017), Statistical
    Analysis of Contingency Tables, ch. 8. No pairs: (0, -1, 1).
    """
    a, b, c, d = _counts(a=a, b=b, c=c, d=d)
    zf = _z(z)
    n = a + b + c + d
    if n == 0:
        return 0.0, -1.0, 1.0
    with _floats(a=a, b=b, c=c, d=d):
        p1, p2 = (a + b) / n, (a + c) / n
        l1, u1 = _wilson(a + b, n, zf)
        l2, u2 = _wilson(a + c, n, zf)
        margins = (a + b) * (c + d) * (a + c) * (b + d)
        phi = 0.0
        if margins:
            cross = a * d - b * c
            if cross > n / 2:
                phi = (cross - n / 2) / math.sqrt(margins)
            elif cross < 0:
                phi = cross / math.sqrt(margins)
        diff = p1 - p2
        below = (p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2
        above = (u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2
    # |phi| <= 1 keeps both sums non-negative; max() guards the last bit of rounding.
    return (
        diff,
        max(-1.0, diff - math.sqrt(max(0.0, below))),
        min(1.0, diff + math.sqrt(max(0.0, above))),
    )


def pass_hat_k(n: int, c: int, k: int) -> float | None:
    """The unbiased estimate of pass^k -- all of k fresh trials pass -- from c passes in n
    trials: C(c, k) / C(n, k). Yao et al. (2024), tau-bench, arXiv:2406.12045, section 4 (the
    pass^k counterpart of the pass@k estimator of Chen et al. 2021, arXiv:2107.03374).

    None when fewer than k trials were run (k > n): it cannot be estimated without bias.
    """
    c, n = _proportion(c, n, "c", "n")
    (k,) = _counts(k=k)
    if k < 1:
        raise StatsError(f"k must be at least 1, got {k}")
    if k > n:
        return None
    with _floats(n=n, c=c, k=k):  # a ratio of at most 1: exact, but kept safe
        return comb(c, k) / comb(n, k)


def cohen_kappa(rater_a: Iterable[Hashable], rater_b: Iterable[Hashable]) -> float:
    """Cohen's kappa for two raters labelling the same items: (po - pe) / (1 - pe), where po is
    the observed agreement and pe the agreement expected from each rater's label frequencies.
    Cohen, J. (1960). A coefficient of agreement for nominal scales. Educational and
    Psychological Measurement 20, 37-46.

    Each rater's labels are any iterable (read once, into a list), in item order. Labels are
    compared with `==` (and hashed), so 1, 1.0 and True are the same label; a label that does
    not equal itself (a float or Decimal NaN) could never agree, not even with itself, and is
    refused (StatsError) rather than counted as a disagreement.

    Undefined (StatsError) with no items, labels of unequal count, or when chance agreement is
    already certain (pe == 1: both raters gave every item the same one label), where agreement
    says nothing about the raters.
    """
    a, b = list(rater_a), list(rater_b)
    if len(a) != len(b):
        raise StatsError(f"the raters labelled {len(a)} and {len(b)} items")
    n = len(a)
    if n == 0:
        raise StatsError("kappa needs at least one item")
    for name, labels in (("rater_a", a), ("rater_b", b)):
        for i, label in enumerate(labels):
            if label != label:  # NaN: the one kind of label that never agrees
                raise StatsError(
                    f"{name}'s item {i + 1} ({label!r}) does not equal itself (NaN?), so it could "
                    "never agree with any label"
                )
    observed = sum(x == y for x, y in zip(a, b, strict=True)) / n
    labels = set(a) | set(b)
    expected = sum(
        (sum(x == label for x in a) / n) * (sum(y == label for y in b) / n) for label in labels
    )
    if math.isclose(expected, 1.0):
        raise StatsError(
            "kappa is undefined: both raters gave every item the same label, so agreement "
            "is certain by chance"
        )
    return (observed - expected) / (1 - expected)


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact (conditional) McNemar p-value for b and c discordant pairs: under no
    change each discordant pair goes either way with probability 1/2, so p = min(1, 2 P(X <=
    min(b, c))) for X ~ Binomial(b + c, 1/2). McNemar, Q. (1947), Psychometrika 12, 153-157;
    the exact form as in Fagerland, Lydersen & Laake (2013), BMC Medical Research Methodology
    13, 91, whose worked example (b=1, c=7) gives 0.070. No discordant pair: 1.0.
    """
    b, c = _counts(b=b, c=c)
    m = b + c
    if m == 0:
        return 1.0
    tail = sum(comb(m, i) for i in range(min(b, c) + 1))
    return min(1.0, 2 * tail / 2**m)


def rate(k: int, n: int) -> str:
    """`k/n (95% CI lo–hi)` with percentages."""
    lo, hi = wilson(k, n)
    return f"{k}/{n} (95% CI {lo:.0%}–{hi:.0%})"


def upper_rate(k: int, n: int) -> str:
    """`k/n (95% upper bound u)` for rates that should be zero (attack success, false positives):
    the one-sided 95% Wilson upper limit."""
    _, hi = wilson(k, n, Z95_ONE_SIDED)
    return f"{k}/{n} (95% upper bound {hi:.1%})"


class Rate(Strict):
    """k of n, with its 95% Wilson interval; `rate` None when n is 0. Every rate the harness
    reports is one: a case's pass rate (stored in a run record as `RecordedRate`), a judge's
    agreement with the labels, A/B's position consistency."""

    model_config = ConfigDict(frozen=True)

    k: int
    n: int
    rate: float | None
    low: float
    high: float

    @classmethod
    def of(cls, k: int, n: int) -> Rate:
        low, high = wilson(k, n)
        return cls(k=k, n=n, rate=k / n if n else None, low=low, high=high)

    @property
    def text(self) -> str:
        """`k/n (95% CI lo%–hi%)`, as the run reports show it."""
        return rate(self.k, self.n)

    def show(self) -> str:
        """`k/n = r (95% CI lo–hi)`, as the calibration reports show it."""
        if self.rate is None:
            return f"{self.k}/{self.n} (no items)"
        return f"{self.k}/{self.n} = {self.rate:.2f} (95% CI {self.low:.2f}–{self.high:.2f})"
