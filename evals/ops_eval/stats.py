"""Small-sample statistics, so every rate is printed with its denominator and an interval."""

from __future__ import annotations

import math
from math import comb

Z95 = 1.959963984540054  # two-sided 95%
Z95_ONE_SIDED = 1.6448536269514722


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for k successes in n trials (0..1); (0, 1) when n == 0."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def rate(k: int, n: int) -> str:
    """`k/n (95% CI lo–hi)` with percentages."""
    lo, hi = wilson(k, n)
    return f"{k}/{n} (95% CI {lo:.0%}–{hi:.0%})"


def upper_rate(k: int, n: int) -> str:
    """`k/n (95% upper bound u)` for rates that should be zero (attack success, false positives):
    the one-sided 95% Wilson upper limit."""
    _, hi = wilson(k, n, Z95_ONE_SIDED)
    return f"{k}/{n} (95% upper bound {hi:.1%})"


def pass_hat_k(successes: int, trials: int, k: int) -> float | None:
    """Unbiased estimate of pass^k (all k of k fresh trials pass) from c passes in n trials:
    C(c, k) / C(n, k) (tau-bench). None when fewer than k trials were run."""
    if trials < k or k < 1:
        return None
    return comb(successes, k) / comb(trials, k)
