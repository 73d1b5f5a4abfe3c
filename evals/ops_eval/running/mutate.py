"""An eval set played under each deterministic mutant of the agent (`playing/mutants/`) with
the scripted oracle, which makes each case's expected calls and gives its reference answers:
exactly reproducible, offline, in seconds.

The unmutated agent is played first. A case that fails there says nothing about a mutant, so it
is left out of every verdict (and named). Then, per mutant:

- **killed**: some trial of a case that passed unmutated fails (which cases, which scorers);
- **survived**: every such trial passes -- the set did not notice. The trials that called a
  tool the mutant touches, and the scorers that read them, say where a case could catch it;
- **equivalent**: a person marked it (`gate.yaml`: `mutation.equivalent`, with the reason) as
  unable to change any outcome; left out of the score.

The mutation score is killed / (mutants - equivalent), per set and per kind.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from ..core.plan import Plan
from ..playing.mutants import Mutant
from ..results.record_parts import TrialRecord

Status = Literal["killed", "survived", "equivalent"]
TIMEOUT_S = 60.0
"""Seconds per trial: the oracle answers at once; a mutant that hangs the agent is killed."""


@dataclass(frozen=True)
class Verdict:
    mutant: Mutant
    status: Status
    killed_by: dict[str, list[str]] = field(default_factory=dict)
    """Case -> the scorers that failed it (or `error: ...`), for a killed mutant."""
    reached: int = 0
    """Trials that called a tool the mutant touches (a survivor's: where a case could catch it)."""
    changed: int = 0
    """Trials whose play differs from the unmutated agent's -- a tool result, an answer, a write
    left waiting, the store after. A survivor that changed nothing was never exercised by the
    set; one that changed trials was exercised, and no scorer noticed."""
    why: str = ""
    """An equivalent mutant's reason, as marked."""


@dataclass(frozen=True)
class Mutation:
    eval_set: str
    broken_unmutated: list[str]
    """Cases that fail on the unmutated agent: left out of every verdict."""
    verdicts: list[Verdict]

    def score(self, kind: str | None = None) -> tuple[int, int]:
        """(killed, mutants that are not equivalent), of one kind or all."""
        mine = [v for v in self.verdicts if kind is None or v.mutant.kind == kind]
        counted = [v for v in mine if v.status != "equivalent"]
        return sum(v.status == "killed" for v in counted), len(counted)


def _failing(trial: TrialRecord) -> list[str]:
    if trial.status == "error":
        return [f"error: {trial.error}"]
    return [name for name, s in trial.scores.items() if s.outcome in ("fail", "error")]


def play_all(plan: Plan, model: object, mutant: Mutant | None = None) -> list[TrialRecord]:
    """Every case of `plan` once, on `model` -- played under `mutant` when given -- and scored
    as `ops-eval run` scores it. Only the play is mutated: the scorers' references (the gold
    store `end_state` builds through the real tools) are made by the agent as it is."""
    import logging
    from contextlib import nullcontext

    from ..base.model_logs import model_logs
    from ..playing.play import play_trial
    from .trials import scored_trial

    async def one(case: object) -> object:
        with mutant.applied() if mutant else nullcontext():
            return await play_trial(plan, case, 1, model, TIMEOUT_S)  # type: ignore[arg-type]

    with model_logs(floor=logging.ERROR):  # the guards warn at what a mutant lets through
        views = [asyncio.run(one(case)) for case in plan.cases]
    return [scored_trial(plan, view) for view in views]  # type: ignore[arg-type]


def _played(trial: TrialRecord) -> object:
    """What a trial did, as a mutant could change it."""
    return (
        [
            ([(c.name, c.args, c.result) for c in t.calls], t.response, [c.name for c in t.pending])
            for t in trial.turns
        ],
        trial.state_after,
    )


def _reached(trials: Iterable[TrialRecord], tools: Sequence[str]) -> int:
    return sum(any(c.name in tools for t in trial.turns for c in t.calls) for trial in trials)


def mutate(
    plan: Plan, mutants: Sequence[Mutant], equivalent: dict[str, str] | None = None
) -> Mutation:
    """Play `plan` unmutated, then under each mutant, with the scripted oracle."""
    from ..models.stand_ins import OracleLlm

    equivalent = equivalent or {}
    oracle = OracleLlm.from_cases(plan.cases)
    unmutated = play_all(plan, oracle)
    broken = [t.case_id for t in unmutated if t.status != "passed"]
    verdicts = []
    for mutant in mutants:
        if mutant.name in equivalent:
            verdicts.append(Verdict(mutant, "equivalent", why=equivalent[mutant.name]))
            continue
        trials = play_all(plan, OracleLlm.from_cases(plan.cases), mutant)
        killed = {
            t.case_id: _failing(t)
            for t in trials
            if t.case_id not in broken and t.status != "passed"
        }
        status: Status = "killed" if killed else "survived"
        changed = sum(_played(a) != _played(b) for a, b in zip(unmutated, trials, strict=True))
        reached = _reached(trials, mutant.tools)
        verdicts.append(Verdict(mutant, status, killed, reached, changed))
    return Mutation(plan.evalset.display, broken, verdicts)
