"""The gate's decision: the candidate alone (suite threshold, required cases), and against its
baseline -- per eval set and per category, with the interval of the difference, and per case
(the flips, with McNemar's exact p and where the trajectories first part).

A verdict is a claim about two runs decided with an interval, not a point drop:

- `regressed`: the pass rate dropped by more than the regression threshold *and* the 95%
  interval of the difference (candidate - baseline) lies below zero;
- `inconclusive_noise`: the drop exceeds the threshold but the interval reaches zero -- more
  trials would tell; the gate passes and says so loudly;
- `improved`: the interval lies above zero; `pass` otherwise.

When both runs played the same cases with the same repeats, trials pair by (case, repeat) and
the interval is Newcombe's paired one; otherwise the samples are taken as independent. Either
way, trials of one case are counted as independent draws, which is optimistic with repeats.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from ..calls import ToolCall, Turn
from ..records import RunRecord, TrialRecord
from ..stats import mcnemar_exact, newcombe_diff, newcombe_paired, wilson
from .config import GateConfig
from .entries import Verdict
from .outcomes import Tally, tally, trial_verdict


@dataclass(frozen=True)
class Side:
    """One run's trials in a comparison: k of n with a verdict, Wilson interval."""

    k: int
    n: int
    silent: int  # trials without a verdict here (errors, all n/a, or unpaired)

    @property
    def rate(self) -> float | None:
        return self.k / self.n if self.n else None

    @property
    def interval(self) -> tuple[float, float]:
        return wilson(self.k, self.n)

    def as_dict(self) -> dict[str, object]:
        low, high = self.interval
        return {"k": self.k, "n": self.n, "rate": self.rate, "low": low, "high": high}


@dataclass(frozen=True)
class Comparison:
    """One scope (the whole set, or one category) of the two runs."""

    name: str
    baseline: Side
    candidate: Side
    paired: bool
    estimate: float
    low: float
    high: float
    verdict: Verdict
    note: str = ""

    @property
    def drop(self) -> float:
        return -self.estimate


@dataclass(frozen=True)
class Flip:
    """A case whose verdict changed: it passed every trial in one run and not in the other."""

    case_id: str
    category: str
    direction: Literal["pass->fail", "fail->pass"]
    baseline: str  # k/n of the case's trials
    candidate: str
    divergence: str  # where the trajectories first differ, and what failed


@dataclass
class GateResult:
    candidate: Side
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


def decide(estimate: float, low: float, high: float, threshold: float) -> Verdict:
    """The verdict of a difference (candidate - baseline) and its 95% interval."""
    if -estimate > threshold:
        return "regressed" if high < 0 else "inconclusive_noise"
    return "improved" if low > 0 else "pass"


def _by_key(
    trials: Sequence[TrialRecord], scorers: Sequence[str]
) -> dict[tuple[str, int], bool | None]:
    return {(t.case_id, t.repeat): trial_verdict(t, scorers) for t in trials}


def _compare(
    name: str,
    base: Sequence[TrialRecord],
    cand: Sequence[TrialRecord],
    scorers: Sequence[str],
    threshold: float,
    paired: bool,
) -> Comparison:
    if paired:
        b, c = _by_key(base, scorers), _by_key(cand, scorers)
        both = [(b[k], c[k]) for k in b if b[k] is not None and c.get(k) is not None]
        table = [
            sum(x and y for x, y in both),
            sum(x and not y for x, y in both),
            sum(y and not x for x, y in both),
            sum(not x and not y for x, y in both),
        ]
        yes_no = table[0] + table[1], table[0] + table[2]
        n = len(both)
        base_side = Side(yes_no[0], n, len(base) - n)
        cand_side = Side(yes_no[1], n, len(cand) - n)
        # newcombe_paired gives first - second; ours is candidate - baseline.
        a, bb, cc, d = table
        estimate, low, high = newcombe_paired(a, cc, bb, d)
    else:
        bt, ct = tally(base, scorers), tally(cand, scorers)
        base_side, cand_side = Side(bt.k, bt.n, bt.silent), Side(ct.k, ct.n, ct.silent)
        estimate, low, high = newcombe_diff(ct.k, ct.n, bt.k, bt.n)
    if not base_side.n or not cand_side.n:
        empty = "baseline" if not base_side.n else "candidate"
        return Comparison(
            name, base_side, cand_side, paired, 0.0, -1.0, 1.0, "pass",
            note=f"no {empty} trial with a verdict: nothing to compare",
        )  # fmt: skip
    verdict = decide(estimate, low, high, threshold)
    return Comparison(name, base_side, cand_side, paired, estimate, low, high, verdict)


def _show(call: ToolCall | None) -> str:
    return "no call" if call is None else call.show()


def _first_divergence(base: TrialRecord | None, cand: TrialRecord | None) -> str:
    """Where two trials' trajectories first part: turn and call, with both calls."""
    if base is None or cand is None:
        return "one side has no trial with a verdict"
    turns: list[tuple[Turn | None, Turn | None]] = [
        (
            base.turns[i] if i < len(base.turns) else None,
            cand.turns[i] if i < len(cand.turns) else None,
        )
        for i in range(max(len(base.turns), len(cand.turns)))
    ]
    for i, (bt, ct) in enumerate(turns, start=1):
        if bt is None or ct is None:
            played = "baseline" if ct is None else "candidate"
            return f"turn {i}: only the {played} played it"
        for j in range(max(len(bt.calls), len(ct.calls))):
            b = bt.calls[j] if j < len(bt.calls) else None
            c = ct.calls[j] if j < len(ct.calls) else None
            if b is None or c is None or not b.same(c):
                return f"turn {i}, call {j + 1}: baseline {_show(b)}, candidate {_show(c)}"
        if [p.show() for p in bt.pending] != [p.show() for p in ct.pending]:
            return f"turn {i}: same calls, different writes left waiting for approval"
    return "same calls in every turn; the answers differ"


def _failed_scorers(trial: TrialRecord | None, scorers: Sequence[str]) -> list[str]:
    if trial is None:
        return []
    return [s for s in scorers if s in trial.scores and trial.scores[s].outcome == "fail"]


def _case_flips(
    base: RunRecord, cand: RunRecord, scorers: Sequence[str]
) -> tuple[list[Flip], int, int]:
    """Cases that passed every trial with a verdict in one run and not in the other, and the
    discordant counts (pass->fail, fail->pass) over cases with a verdict in both runs."""

    def per_case(record: RunRecord) -> dict[str, list[tuple[TrialRecord, bool]]]:
        found: dict[str, list[tuple[TrialRecord, bool]]] = {}
        for t in record.trials:
            v = trial_verdict(t, scorers)
            if v is not None:
                found.setdefault(t.case_id, []).append((t, v))
        return found

    b_cases, c_cases = per_case(base), per_case(cand)
    flips: list[Flip] = []
    worse = better = 0
    for case in cand.cases:
        b, c = b_cases.get(case.case_id), c_cases.get(case.case_id)
        if not b or not c:
            continue
        b_pass, c_pass = all(v for _, v in b), all(v for _, v in c)
        if b_pass == c_pass:
            continue
        if b_pass:
            worse += 1
            b_trial, c_trial = b[0][0], next(t for t, v in c if not v)
            failed = _failed_scorers(c_trial, scorers)
        else:
            better += 1
            b_trial, c_trial = next(t for t, v in b if not v), c[0][0]
            failed = _failed_scorers(b_trial, scorers)
        where = _first_divergence(b_trial, c_trial)
        side = "candidate" if b_pass else "baseline"
        flips.append(
            Flip(
                case_id=case.case_id,
                category=case.category,
                direction="pass->fail" if b_pass else "fail->pass",
                baseline=f"{sum(v for _, v in b)}/{len(b)}",
                candidate=f"{sum(v for _, v in c)}/{len(c)}",
                divergence=f"{where}; {side} trial #{(c_trial if b_pass else b_trial).repeat} "
                f"failed {', '.join(failed) or 'no scorer'}",
            )
        )
    return flips, worse, better


def _absolute(
    cand: RunRecord, config: GateConfig, scorers: Sequence[str]
) -> tuple[Tally, list[str]]:
    """The candidate's own checks: the suite threshold and the required cases."""
    whole = tally(cand.trials, scorers)
    failures = []
    if whole.n and whole.k / whole.n < config.suite_threshold:
        failures.append(
            f"pass rate {whole.k}/{whole.n} ({whole.k / whole.n:.0%}) is below the suite "
            f"threshold {config.suite_threshold:.0%}"
        )
    for case_id in config.required_for(cand.eval_set):
        trials = [t for t in cand.trials if t.case_id == case_id]
        if not trials:
            failures.append(f"required case {case_id} was not run")
            continue
        bad = [t for t in trials if trial_verdict(t, scorers) is not True]
        if bad:
            how = ", ".join(
                f"#{t.repeat} {'errored' if t.status == 'error' else 'failed'}" for t in bad
            )
            failures.append(f"required case {case_id} did not pass every trial ({how})")
    return whole, failures


def evaluate(candidate: RunRecord, baseline: RunRecord | None, config: GateConfig) -> GateResult:
    """The gate's result for `candidate`, against `baseline` when there is one."""
    scorers = config.gating_scorers
    whole, failures = _absolute(candidate, config, scorers)
    result = GateResult(candidate=Side(whole.k, whole.n, whole.silent), verdict="pass")
    if baseline is None:
        result.notes.append("no baseline: only the suite threshold and the required cases apply")
        result.failures = failures
        return result
    keys = lambda r: {(t.case_id, t.repeat) for t in r.trials}  # noqa: E731
    paired = keys(baseline) == keys(candidate)
    threshold = config.regression_threshold
    result.set = _compare("all", baseline.trials, candidate.trials, scorers, threshold, paired)
    categories = dict.fromkeys(
        [c.category for c in baseline.cases] + [c.category for c in candidate.cases]
    )
    for cat in categories:
        b = [t for t in baseline.trials if t.category == cat]
        c = [t for t in candidate.trials if t.category == cat]
        result.categories.append(_compare(cat, b, c, scorers, threshold, paired))
    result.flips, worse, better = _case_flips(baseline, candidate, scorers)
    result.discordant = (worse, better)
    result.mcnemar_p = mcnemar_exact(worse, better)
    result.verdict = result.set.verdict
    if result.set.verdict == "regressed":
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
        f"{what} regressed: pass rate down {c.drop:.1%} (more than {threshold:.0%}), "
        f"95% CI of the difference {c.low:+.1%} to {c.high:+.1%} excludes 0"
    )
