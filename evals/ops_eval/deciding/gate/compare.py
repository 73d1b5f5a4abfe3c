"""The gate's decision: the candidate alone (suite threshold, required cases), and against its
baseline -- per eval set and per category, with the interval of the difference, and per case
(the flips, with McNemar's exact p; `flips.py`).

A verdict is a claim about two runs decided with an interval, not a point drop:

- `regressed`: the pass rate dropped by more than the regression threshold *and* the 95%
  interval of the difference (candidate - baseline) lies below zero;
- `inconclusive_noise`: the drop exceeds the threshold but the interval reaches zero -- more
  trials would tell; the gate passes and says so loudly;
- `improved`: the interval lies above zero; `pass` otherwise.

When both runs played the same cases with the same repeats, trials pair by (case, repeat) and
the interval is Newcombe's paired one, over the pairs with a verdict on both sides; otherwise
the samples are taken as independent. Either way, the trials of one case count as independent
draws, which is optimistic with repeats. Each side's own rate is printed whole; a paired
difference says over how many pairs it was taken.

Two records with case hashes are compared over the cases both played at the same hash
(`results.shared_cases`): a case added, removed or changed since the baseline is left out of
both sides, and named by the verdict. The candidate's own checks (the suite threshold, the
required cases) still take every trial it played.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Literal

from ...base.stats import mcnemar_exact, newcombe_diff, newcombe_paired
from ...results.records import RunRecord, TrialRecord
from ...validation.gate_config import GateConfig
from ..ledger.entries import Verdict
from .flips import Flip, case_flips
from .outcomes import Tally, tally, trial_verdict

ScopeVerdict = Verdict | Literal["not_compared"]
"""A category present with a verdict on one side only is not compared (its trials still count
in the set's rates and the candidate's own checks)."""


@dataclass(frozen=True)
class Comparison:
    """One scope (the whole set, or one category) of the two runs."""

    name: str
    baseline: Tally
    candidate: Tally
    pairs: int | None  # the pairs a paired difference was taken over; None: independent
    estimate: float
    low: float
    high: float
    verdict: ScopeVerdict

    @property
    def drop(self) -> float:
        return -self.estimate


@dataclass
class GateResult:
    candidate: Tally
    verdict: Verdict
    set: Comparison | None = None
    categories: list[Comparison] = field(default_factory=list)
    flips: list[Flip] = field(default_factory=list)
    mcnemar_p: float | None = None
    discordant: tuple[int, int] = (0, 0)  # (pass->fail, fail->pass) cases
    failures: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.failures


# A drop of exactly the threshold (95/100 after 100/100 at 5 points) comes out of float
# arithmetic a hair above it; it must not count as exceeding it.
_EPSILON = 1e-9


def decide(estimate: float, low: float, high: float, threshold: float) -> Verdict:
    """The verdict of a difference (candidate - baseline) and its 95% interval."""
    if -estimate > threshold + _EPSILON:
        return "regressed" if high < 0 else "inconclusive_noise"
    return "improved" if low > 0 else "pass"


def _paired(
    base: Sequence[TrialRecord], cand: Sequence[TrialRecord], scorers: Sequence[str]
) -> tuple[int, tuple[float, float, float]] | None:
    """(pairs, the paired difference) over (case, repeat) pairs with a verdict on both sides;
    None when there is no such pair."""
    b = {(t.case_id, t.repeat): trial_verdict(t, scorers) for t in base}
    c = {(t.case_id, t.repeat): trial_verdict(t, scorers) for t in cand}
    both = [(b[k], c[k]) for k in b if b[k] is not None and c.get(k) is not None]
    if not both:
        return None
    only_cand = sum(y and not x for x, y in both)
    only_base = sum(x and not y for x, y in both)
    in_both = sum(x and y for x, y in both)
    neither = len(both) - in_both - only_cand - only_base
    # newcombe_paired is first - second; the first here is the candidate.
    return len(both), newcombe_paired(in_both, only_cand, only_base, neither)


def _compare(
    name: str,
    base: Sequence[TrialRecord],
    cand: Sequence[TrialRecord],
    scorers: Sequence[str],
    threshold: float,
    paired: bool,
) -> Comparison:
    bt, ct = tally(base, scorers), tally(cand, scorers)
    if not bt.n or not ct.n:
        return Comparison(name, bt, ct, None, 0.0, -1.0, 1.0, "not_compared")
    found = _paired(base, cand, scorers) if paired else None
    pairs, (estimate, low, high) = found or (None, newcombe_diff(ct.k, ct.n, bt.k, bt.n))
    return Comparison(
        name, bt, ct, pairs, estimate, low, high, decide(estimate, low, high, threshold)
    )


def _absolute(cand: RunRecord, config: GateConfig) -> tuple[Tally, list[str]]:
    """The candidate's own checks: the suite threshold (its error trials counted as not
    passing: an error never helps a run through) and the required cases."""
    scorers = config.gating_scorers
    whole = tally(cand.trials, scorers)
    failures = []
    counted = whole.n + whole.errors
    if counted and whole.k / counted < config.suite_threshold:
        errors = f", {whole.errors} errored trial(s) counted as not passing" if whole.errors else ""
        failures.append(
            f"pass rate {whole.k}/{counted} ({whole.k / counted:.1%}{errors}) is below the "
            f"suite threshold {config.suite_threshold:.1%}"
        )
    for case_id in config.required_for(cand.eval_set):
        trials = [t for t in cand.trials if t.case_id == case_id]
        if not trials:
            failures.append(not_run_failure(case_id))
            continue
        bad = [t for t in trials if trial_verdict(t, scorers) is not True]
        if bad:
            how = ", ".join(
                f"#{t.repeat} {'errored' if t.status == 'error' else 'failed'}" for t in bad
            )
            failures.append(f"required case {case_id} did not pass every trial ({how})")
    return whole, failures


def not_run_failure(case_id: str) -> str:
    """The failure a required case the run did not play is recorded as (the text shows all
    of them as one subset line: `headline`)."""
    return f"required case {case_id} was not run"


def own_failures(record: RunRecord, config: GateConfig) -> list[str]:
    """Why the record fails its own checks (suite threshold, required cases); [] when it holds."""
    return _absolute(record, config)[1]


def evaluate(
    candidate: RunRecord,
    baseline: RunRecord | None,
    config: GateConfig,
    shared: Collection[str] | None = None,
) -> GateResult:
    """The gate's result for `candidate`, against `baseline` when there is one -- over the
    `shared` cases only when given (`results.shared_cases`). Both must be judgeable
    (`outcomes.judgeable`)."""
    from ...results.shared_cases import restricted

    scorers = config.gating_scorers
    whole, failures = _absolute(candidate, config)
    result = GateResult(candidate=whole, verdict="pass")
    if baseline is None:
        result.notes.append("no baseline: only the suite threshold and the required cases apply")
        result.failures = failures
        return result
    if shared is not None:
        baseline, candidate = restricted(baseline, shared), restricted(candidate, shared)
    keys = lambda r: {(t.case_id, t.repeat) for t in r.trials}  # noqa: E731
    paired = keys(baseline) == keys(candidate)
    threshold = config.regression_threshold
    result.set = _compare("all", baseline.trials, candidate.trials, scorers, threshold, paired)
    cats = dict.fromkeys([c.category for c in baseline.cases + candidate.cases])
    for cat in cats:
        b = [t for t in baseline.trials if t.category == cat]
        c = [t for t in candidate.trials if t.category == cat]
        result.categories.append(_compare(cat, b, c, scorers, threshold, paired))
    result.flips, worse, better = case_flips(baseline, candidate, scorers)
    result.discordant = (worse, better)
    result.mcnemar_p = mcnemar_exact(worse, better)
    if result.set.verdict == "not_compared":  # `judgeable` sides always have verdicts
        raise ValueError("evaluate: a side without a trial with a verdict; check judgeable first")
    result.verdict = result.set.verdict
    if result.verdict == "regressed":
        failures.insert(0, _regressed("the set", result.set, threshold))
    if config.categories == "gate":
        for comparison in result.categories:
            if comparison.verdict == "regressed":
                result.verdict = "regressed"
                failures.append(_regressed(f"category {comparison.name}", comparison, threshold))
    if not paired:
        result.notes.append(
            "the runs played different cases or repeats: compared as independent samples"
        )
    result.failures = failures
    return result


def _regressed(what: str, c: Comparison, threshold: float) -> str:
    return (
        f"{what} regressed: pass rate down {c.drop:.1%} (more than {threshold:.1%}), "
        f"95% CI of the difference {c.low:+.1%} to {c.high:+.1%} excludes 0"
    )
