"""An eval set played under each deterministic mutant of the agent (`mutation/mutants/`) with
the scripted oracle, which makes each case's expected calls and gives its reference answers:
exactly reproducible, offline, in seconds.

The unmutated agent is played first. A case that fails there says nothing about a mutant, so it
is left out of every verdict, and named, one line each, with why it fails (its failing scorers
and their details, short): a case left out is a case to fix, and the line says where to start.
Then, per mutant:

- **killed**: some trial of a case that passed unmutated fails (which cases, which scorers);
- **survived**: every such trial passes -- the set did not notice. The trials that called a
  tool the mutant touches, and the scorers that read them, say where a case could catch it;
- **equivalent**: a person marked it (`gate.yaml`: `mutation.equivalent`, with the reason) as
  unable to change any outcome; left out of the score.

The mutation score is killed / (mutants - equivalent), per set and per kind. `select_mutants`
picks the mutants `ops-eval mutate` plays, `floor_problems` what fails it against `gate.yaml`'s
`mutation` block (the floor, the must-kill mutants), and `said` what it prints: the verdict
against that floor first, then the table (`verdict_lines`), the floor and the score.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from ..core.plan import Plan
from ..results.record_parts import TrialRecord
from .mutants import Mutant

if TYPE_CHECKING:
    from ..validation.gate_config import MutationFloor

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
    broken_why: dict[str, str] = field(default_factory=dict)
    """Case -> why it fails unmutated: its failing scorers and their details (`_why`)."""

    def score(self, kind: str | None = None) -> tuple[int, int]:
        """(killed, mutants that are not equivalent), of one kind or all."""
        mine = [v for v in self.verdicts if kind is None or v.mutant.kind == kind]
        counted = [v for v in mine if v.status != "equivalent"]
        return sum(v.status == "killed" for v in counted), len(counted)


def _failing(trial: TrialRecord) -> list[str]:
    if trial.status == "error":
        return [f"error: {trial.error}"]
    return [name for name, s in trial.scores.items() if s.outcome in ("fail", "error")]


WHY_CHARS = 160
"""Characters of the reason a case fails unmutated, on its one line."""


def _why(trial: TrialRecord) -> str:
    """Why a trial failed, short: the error, or each failing scorer with its detail."""
    if trial.status == "error":
        why = f"error: {trial.error}"
    else:
        failed = [(n, s) for n, s in trial.scores.items() if s.outcome in ("fail", "error")]
        why = "; ".join(f"{n}: {s.detail}" if s.detail else n for n, s in failed) or trial.status
    why = " ".join(why.split())
    return why if len(why) <= WHY_CHARS else why[: WHY_CHARS - 1] + "…"


def play_all(plan: Plan, model: object, mutant: Mutant | None = None) -> list[TrialRecord]:
    """Every case of `plan` once, on `model` -- played under `mutant` when given -- and scored
    as `ops-eval run` scores it. Only the play is mutated: the scorers' references (the gold
    store `end_state` builds through the real tools) are made by the agent as it is: the engine
    (`trials.play_trials`) enters the mutant around each trial's play and leaves it to score."""
    import logging
    from contextlib import AbstractContextManager

    from ..base.model_logs import model_logs
    from ..running.options import RunOptions
    from ..running.trials import bare, in_plan_order, play_trials

    def applied(case: object, repeat: int) -> AbstractContextManager[object]:
        return mutant.applied()  # type: ignore[union-attr]

    options = RunOptions(timeout_s=TIMEOUT_S)  # each case once, one at a time, nothing kept
    finished: list[TrialRecord] = []
    with model_logs(floor=logging.ERROR):  # the guards warn at what a mutant lets through
        asyncio.run(play_trials(plan, model, options, finished.append, applied if mutant else bare))
    return in_plan_order(plan, options, finished)


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
    why = {t.case_id: _why(t) for t in unmutated if t.status != "passed"}
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
    return Mutation(plan.evalset.display, broken, verdicts, why)


def select_mutants(
    plan: Plan, names: str | None, *, live: bool, redteam: bool
) -> tuple[dict[str, Mutant], list[str]]:
    """(every mutant the mode offers for the set's agents -- instruction mutants `live`, else the
    deterministic ones --, the names `--mutants` chose, all by default); exit 2 for `redteam`
    on a set of another agent, or a name that is no such mutant."""
    from ..base.inputs import bad_input, id_list
    from .mutants import OWN_AGENTS, for_agents
    from .mutants.instruction import instruction_mutants

    agents = {c.meta.agent for c in plan.cases if c.meta}
    if redteam and not agents <= OWN_AGENTS:
        raise bad_input("--redteam plays the ops copilot's guards; this set tests another agent")
    mutants = instruction_mutants() if live else for_agents(agents)
    chosen = id_list("--mutants", names, "mutant") or list(mutants)
    unknown = [n for n in chosen if n not in mutants]
    if unknown:
        raise bad_input(f"--mutants: {', '.join(unknown)}: no such mutant ({', '.join(mutants)})")
    return mutants, chosen


def _evidence(verdict: Verdict) -> str:
    if verdict.status == "equivalent":
        return f"marked equivalent: {verdict.why}"
    if verdict.status == "killed":
        return "; ".join(
            f"{case} ({', '.join(scorers)})" for case, scorers in verdict.killed_by.items()
        )
    if not verdict.changed:
        tools = "/".join(verdict.mutant.tools)
        reached = f"{verdict.reached} trial(s) called {tools}, " if tools else ""
        return f"never exercised: {reached}no trial played differently"
    return (
        f"exercised, unnoticed: {verdict.changed} trial(s) played differently and every scorer "
        "that read them passed"
    )


def _score(killed: int, counted: int) -> str:
    return f"{killed}/{counted}" + (f" ({killed / counted:.0%})" if counted else "")


def verdict_lines(result: Mutation) -> list[str]:
    """The cases left out, one row per mutant (kind, verdict, evidence), and the score."""
    from tabulate import tabulate

    lines = []
    if result.broken_unmutated:
        lines.append("left out (they fail unmutated):")
        for case in result.broken_unmutated:
            why = result.broken_why.get(case)
            lines.append(f"  {case}: {why}" if why else f"  {case}")
    rows = [[v.mutant.name, v.mutant.kind, v.status, _evidence(v)] for v in result.verdicts]
    lines += tabulate(
        rows, ["mutant", "kind", "verdict", "evidence"], tablefmt="plain"
    ).splitlines()
    kinds = ", ".join(
        f"{kind} {_score(*result.score(kind))}" for kind in ("tool", "guard", "policy")
    )
    lines.append(f"mutation score of {result.eval_set}: {_score(*result.score())}; {kinds}")
    return lines


def said(result: Mutation, floor: MutationFloor, complete: bool) -> tuple[list[str], int]:
    """What `ops-eval mutate` prints, and its exit code: the verdict against `gate.yaml`'s
    floor and why, first; the table; the floor itself; each problem; the score last."""
    problems = floor_problems(result, floor, complete)
    killed, counted = result.score()
    must = f"{len(floor.must_kill)} must-kill mutant(s)"
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        head = f"mutate: FAILED -- {problems[0]}{more}"
    elif complete:
        head = (
            f"mutate: PASSED -- score {_score(killed, counted)} meets gate.yaml's floor of "
            f"{floor.min_score:.0%}, and none of its {must} survived"
        )
    else:
        head = (
            f"mutate: PASSED -- none of the {len(result.verdicts)} mutant(s) played is a "
            "must-kill mutant that survived (the floor is for a run of every mutant)"
        )
    table = verdict_lines(result)
    floor_line = (
        f"gate.yaml's floor: mutation.min_score {floor.min_score:.0%}, {must}, "
        f"{len(floor.equivalent)} marked equivalent"
    )
    lines = [head, *table[:-1], floor_line, *[f"FAILED: {p}" for p in problems], table[-1]]
    return lines, (1 if problems else 0)


def floor_problems(result: Mutation, floor: MutationFloor, complete: bool) -> list[str]:
    """What fails the run against `gate.yaml`'s `mutation` block: a must-kill mutant that
    survived, and -- when every mutant was played (`complete`) -- a score below the floor."""
    problems = [
        f"{v.mutant.name} survived, and gate.yaml's mutation.must_kill lists it ({v.mutant.bug})"
        for v in result.verdicts
        if v.status == "survived" and v.mutant.name in floor.must_kill
    ]
    killed, counted = result.score()
    if counted and complete and killed / counted < floor.min_score:
        problems.append(
            f"mutation score {killed / counted:.0%} is below gate.yaml's mutation.min_score "
            f"{floor.min_score:.0%}"
        )
    return problems
