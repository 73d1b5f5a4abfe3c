"""A live mutant's verdict: its run against the unmutated agent's run, on the same model, cases
and repeats, decided by the gate's rule (`gate/compare.decide`) on the paired difference:

- **killed**: a regression the gate would flag -- the pass rate down by more than the
  regression threshold *and* the 95% interval of the paired difference (Newcombe) below zero.
  One unlucky trial does not kill a mutant;
- **inconclusive**: down by more than the threshold, the interval reaching zero -- more repeats
  would tell; not killed;
- **survived**: no such drop: the eval set, on this model, did not notice the mutant.

One difference from the gate: an errored trial counts as failing here. The gate leaves errors
out of its comparison (infrastructure is not evidence about the agent); but both arms run on
the same model and machine, and a mutant whose instruction makes the model ramble until the
trial times out has changed what the agent does. Left out, those trials made such a mutant look
*better* than the agent (measured: +80 points with five timeouts dropped).

The score is killed / mutants, as the deterministic one is.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ..base.stats import newcombe_paired
from ..playing.mutants import Mutant
from ..results.records import RunRecord
from ..validation.gate_config import GateConfig
from .gate.compare import Comparison, decide, evaluate
from .gate.flips import Flip
from .gate.outcomes import Tally, judgeable, trial_verdict

LiveStatus = Literal["killed", "inconclusive", "survived"]
_STATUS: dict[str, LiveStatus] = {"regressed": "killed", "inconclusive_noise": "inconclusive"}


@dataclass(frozen=True)
class LiveVerdict:
    mutant: Mutant
    status: LiveStatus
    comparison: Comparison
    """The whole set: each side's tally, the difference and its interval."""
    flips: list[Flip]
    """Cases whose pass rate moved, with where the trajectories first part."""
    run_id: str
    model: str
    """The model both runs played on, as the records name it."""


def live_verdict(
    mutant: Mutant, unmutated: RunRecord, mutated: RunRecord, config: GateConfig
) -> LiveVerdict:
    """The mutant's verdict from its run and the unmutated one, paired by (case, repeat).
    OpsEvalError when a side has no trial with a verdict at all: every trial errored, which
    says the model or the machine failed, not which instruction is better."""
    scorers = config.gating_scorers
    judgeable(unmutated, scorers, "unmutated")
    judgeable(mutated, scorers, mutant.name)
    before, after = _verdicts(unmutated, scorers), _verdicts(mutated, scorers)
    pairs = [(before[k], after[k]) for k in before if k in after]
    pairs = [(b, a) for b, a in pairs if b is not None and a is not None]
    both = sum(b and a for b, a in pairs)
    only_after = sum(a and not b for b, a in pairs)
    only_before = sum(b and not a for b, a in pairs)
    estimate, low, high = newcombe_paired(
        both, only_after, only_before, len(pairs) - both - only_after - only_before
    )
    comparison = Comparison(
        "all",
        _tally(unmutated, scorers),
        _tally(mutated, scorers),
        len(pairs),
        estimate,
        low,
        high,
        decide(estimate, low, high, config.regression_threshold),
    )
    status = _STATUS.get(comparison.verdict, "survived")
    flips = evaluate(mutated, unmutated, config).flips
    return LiveVerdict(mutant, status, comparison, flips, mutated.run_id, mutated.model.name)


def _verdicts(record: RunRecord, scorers: list[str]) -> dict[tuple[str, int], bool | None]:
    """(case, repeat) -> pass, fail (an errored trial too), or None (no gating scorer counted)."""
    return {
        (t.case_id, t.repeat): False if t.status == "error" else trial_verdict(t, scorers)
        for t in record.trials
    }


def _tally(record: RunRecord, scorers: list[str]) -> Tally:
    """k passing of n with a verdict, errored trials among the n (as failing)."""
    found = [v for v in _verdicts(record, scorers).values() if v is not None]
    errors = sum(t.status == "error" for t in record.trials)
    return Tally(k=sum(found), n=len(found), errors=errors)


def live_score(verdicts: list[LiveVerdict]) -> tuple[int, int]:
    """(killed, mutants)."""
    return sum(v.status == "killed" for v in verdicts), len(verdicts)
