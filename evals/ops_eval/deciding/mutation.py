"""A live mutant's verdict: its run against the unmutated agent's run, on the same model, cases
and repeats, decided by the gate's own comparison (`gate/compare.py`).

- **killed**: the gate would flag the mutant's run as a regression of the unmutated one -- the
  pass rate down by more than the regression threshold *and* the 95% interval of the paired
  difference (Newcombe) below zero. One unlucky trial does not kill a mutant;
- **inconclusive**: down by more than the threshold, the interval reaching zero -- more repeats
  would tell; not killed;
- **survived**: no such drop: the eval set, on this model, did not notice the mutant.

The score is killed / mutants, as the deterministic one is.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ..playing.mutants import Mutant
from ..results.records import RunRecord
from ..validation.gate_config import GateConfig
from .gate.compare import Comparison, evaluate
from .gate.flips import Flip
from .gate.outcomes import judgeable

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
    """The mutant's verdict from its run and the unmutated one (OpsEvalError when either has
    no trial with a verdict: every trial errored, which says nothing about the mutant)."""
    scorers = config.gating_scorers
    judgeable(unmutated, scorers, "unmutated")
    judgeable(mutated, scorers, mutant.name)
    result = evaluate(mutated, unmutated, config)
    assert result.set is not None  # a baseline was given
    status = _STATUS.get(result.set.verdict, "survived")
    return LiveVerdict(mutant, status, result.set, result.flips, mutated.run_id, mutated.model.name)


def live_score(verdicts: list[LiveVerdict]) -> tuple[int, int]:
    """(killed, mutants)."""
    return sum(v.status == "killed" for v in verdicts), len(verdicts)
