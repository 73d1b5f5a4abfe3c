"""How far the judge agrees with the set's labels, with denominators.

The labels were given by hand (by this project's engineer, an AI agent working as its engineer,
not an independent human rater; see the set's header). The label is the truth here and the
judge's pass is the positive: sensitivity is the share of items labelled pass that the judge
passed, specificity the share labelled fail that it failed. Agreement counts every item, and a
judge error (no verdict: an invalid reply) counts as a disagreement: an error never helps a
judge through (fail-closed). Kappa, sensitivity and specificity are taken over the items with a
verdict only -- an error has no verdict to put in a confusion matrix -- and the errors are
listed beside them; any error means the target is missed.

Verbosity bias is the Pearson (point-biserial) correlation between an answer's length in
characters and the judge's pass (1) or fail (0). On its own it is confounded by the set: if the
long answers happen to be the right ones, a perfect judge correlates too. So the same
correlation with the label is given beside it (`verbosity_r_human`: the field keeps the name
the report log was written with); a judge figure well above the labels' one is the bias. Both
are None when undefined (fewer than two verdicts, or one side constant -- a judge that passed
everything).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import ConfigDict

from ...base.stats import Rate, StatsError, cohen_kappa
from ...base.strict import Strict
from .target import Target

_EPSILON = 1e-9
"""A kappa of exactly the target comes out of float arithmetic a hair below it; it meets it."""


@dataclass(frozen=True)
class Graded:
    """One item as the metrics see it: its label, the judge's verdict (None: the judge gave
    none -- an error), and the answer's length."""

    labelled_pass: bool
    judge_pass: bool | None
    length: int


class Metrics(Strict):
    """The figures of one calibration. tp/fn/fp/tn are over the items with a verdict."""

    model_config = ConfigDict(frozen=True)

    items: int
    errors: int
    agreement: Rate
    """Items where the judge's verdict equals the label, of every item (errors disagree)."""
    kappa: float | None
    kappa_undefined: str | None = None
    tp: int
    fn: int
    fp: int
    tn: int
    sensitivity: Rate
    """Judge passes among the items labelled pass (with a verdict)."""
    specificity: Rate
    """Judge fails among the items labelled fail (with a verdict)."""
    judge_passes: Rate
    """The judge's pass rate over the items with a verdict."""
    verbosity_r: float | None
    """Pearson correlation of answer length (characters) and judge pass, over items with a
    verdict; None when undefined."""
    verbosity_r_human: float | None
    """The same correlation with the label, over the same items: the set's own. (Named when
    the labels were thought of as human ones; kept, so every report in the log reads alike.)"""


def pearson(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    """Pearson's r of two equally long samples; None when it is undefined (fewer than two
    pairs, or either sample constant). With ys in {0, 1} it is the point-biserial r."""
    if len(xs) != len(ys):
        raise ValueError(f"pearson: {len(xs)} and {len(ys)} values")
    n = len(xs)
    if n < 2:
        return None
    mx, my = sum(xs) / n, sum(ys) / n
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    if sxx == 0 or syy == 0:
        return None
    return max(-1.0, min(1.0, sxy / math.sqrt(sxx * syy)))


def measure(graded: Sequence[Graded]) -> Metrics:
    """The figures of `graded` (at least one item)."""
    if not graded:
        raise ValueError("measure: no items")
    judged = [g for g in graded if g.judge_pass is not None]
    tp = sum(g.labelled_pass and g.judge_pass is True for g in judged)
    fn = sum(g.labelled_pass and g.judge_pass is False for g in judged)
    fp = sum(not g.labelled_pass and g.judge_pass is True for g in judged)
    tn = sum(not g.labelled_pass and g.judge_pass is False for g in judged)
    kappa: float | None = None
    undefined: str | None = None
    if not judged:
        undefined = "no item has a verdict"
    else:
        try:
            kappa = cohen_kappa([g.labelled_pass for g in judged], [g.judge_pass for g in judged])
        except StatsError as exc:
            undefined = str(exc)
    lengths = [float(g.length) for g in judged]
    return Metrics(
        items=len(graded),
        errors=len(graded) - len(judged),
        agreement=Rate.of(tp + tn, len(graded)),
        kappa=kappa,
        kappa_undefined=undefined,
        tp=tp,
        fn=fn,
        fp=fp,
        tn=tn,
        sensitivity=Rate.of(tp, tp + fn),
        specificity=Rate.of(tn, tn + fp),
        judge_passes=Rate.of(tp + fp, len(judged)),
        verbosity_r=pearson(lengths, [float(bool(g.judge_pass)) for g in judged]),
        verbosity_r_human=pearson(lengths, [float(g.labelled_pass) for g in judged]),
    )


def shortfalls(metrics: Metrics, target: Target, certifies_why: str | None) -> list[str]:
    """Why `metrics` miss `target`, one reason each; [] when they meet it. A set that certifies
    nothing (`certifies_why`) and any judge error each miss it on their own."""
    found = []
    if certifies_why:
        found.append(f"the set certifies nothing: {certifies_why}")
    if metrics.errors:
        found.append(
            f"{metrics.errors} of {metrics.items} items got no verdict (judge errors): a judge "
            "that errs is not certified"
        )
    agreement = metrics.agreement
    if agreement.rate is None or agreement.rate < target.agreement - _EPSILON:
        found.append(
            f"agreement {agreement.k}/{agreement.n} = {agreement.rate or 0:.2f} is below "
            f"{target.agreement:.2f}"
        )
    if metrics.kappa is None:
        found.append(f"kappa is undefined ({metrics.kappa_undefined}), so below {target.kappa:.2f}")
    elif metrics.kappa < target.kappa - _EPSILON:
        found.append(f"kappa {metrics.kappa:.2f} is below {target.kappa:.2f}")
    return found
