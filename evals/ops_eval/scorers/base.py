"""What a scorer is: declared once with its name, what it needs and what it promises, returning
a `Score` -- pass, fail, error, skipped or not applicable, with a detail.

The five outcomes, and how every count reads them (`Score.counted`):

- `pass` / `fail`: a verdict;
- `error`: the scorer applies but reached no verdict (its judge failed, its budget blocked it, an
  expectation is invalid at run time). Fail-closed: it counts in every denominator as not
  passing, fails its trial and its case's `all` gate -- an error never helps anything through;
- `skipped`: the scorer applies but was deliberately not run (no judge configured), with why;
- `n/a`: nothing to score (the case declares nothing of its kind).

`skipped` and `n/a` are left out of every denominator; both say why in their detail.

`@scorer(...)` registers a function `(trial, plan) -> Score`. Everything that lists scorers --
the runner, aggregation, the reports, the docs' table -- reads `registered()`, which finds every
module of this package, so adding a scorer is adding one module (and its test file).
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Literal

from pydantic import ConfigDict, Field, model_validator

from ..base.strict import Strict

if TYPE_CHECKING:
    from ..core.evalset import Case
    from ..core.plan import Plan
    from ..core.trial import TrialView

Outcome = Literal["pass", "fail", "error", "skipped", "n/a"]
UNCOUNTED: frozenset[str] = frozenset({"skipped", "n/a"})
"""Outcomes left out of every denominator."""
Need = Literal["turns", "events", "state"]
Gate = Literal["all", "mean", "report"]
Cases = Literal["all", "scripted", "scenarios"]
"""Which cases a scorer reads: every case, scripted cases only (it compares with the expected
turns: a scenario is scored on its goal, never on its reference conversation), scenarios only."""
SCENARIO_SCORED_ON_GOAL = "a scenario is scored on its goal, not on a script"


class Score(Strict):
    """One scorer's verdict on one trial. `n/a` and `skipped` are left out of every
    denominator; `error` counts as not passing. `error` and `skipped` must say why."""

    model_config = ConfigDict(allow_inf_nan=False)

    outcome: Outcome
    detail: str = ""
    value: float | None = None
    per_turn: list[float] | None = None
    figures: dict[str, float] | None = None
    """Named figures beside `value` that the reports aggregate (a report scorer's)."""
    detail_hmac: str | None = Field(default=None, exclude_if=lambda v: v is None)
    """A minimal-data run's keyed hash of the whole detail, whose label `detail` then is (two
    runs under one key said the same when their hashes match); None, and not written, else."""

    @model_validator(mode="after")
    def _says_why(self) -> Score:
        if self.outcome in ("error", "skipped") and not self.detail.strip():
            raise ValueError(f"a {self.outcome} score must say why in its detail")
        return self

    @property
    def passed(self) -> bool:
        return self.outcome == "pass"

    @property
    def counted(self) -> bool:
        """Whether the score is in its denominators: pass, fail and error are; skipped and n/a
        are not."""
        return self.outcome not in UNCOUNTED

    @classmethod
    def of(cls, passed: bool, detail: str = "", **extra: object) -> Score:
        return cls(outcome="pass" if passed else "fail", detail=detail, **extra)  # type: ignore[arg-type]

    @classmethod
    def error(cls, detail: str) -> Score:
        """The scorer applies but reached no verdict: counted, as not passing."""
        return cls(outcome="error", detail=detail)

    @classmethod
    def skipped(cls, detail: str) -> Score:
        """The scorer applies but was not run, and `detail` says why: not counted."""
        return cls(outcome="skipped", detail=detail)


ScoreFn = Callable[["TrialView", "Plan"], Score]
Applies = Callable[["Case", "Plan"], "str | None"]
"""Why a scorer does not apply to a case -- the case declares nothing of its kind -- or None
when it does; read off the case alone, whatever was played."""


@dataclass(frozen=True)
class Scorer:
    name: str
    func: ScoreFn
    needs: frozenset[str]
    """What the trial view must hold: its turns, ADK's events, the store before and after."""
    passes_when: str
    """One line for the docs: when the scorer passes."""
    gate: Gate
    """How it gates a case over its trials: `all` pass, or (ADK's rule for its trajectory
    metric) the `mean` of their values reaches the criteria's threshold; a `report` scorer never
    gates (it only informs, beside the gate) and never returns `fail`."""
    uses_judge: bool = False
    """Its verdicts come from the LLM judge: the gate accepts them only from a judge calibrated
    against labels made by hand (`ops-eval calibrate`), and says so when they were skipped."""
    applies: Applies | None = None
    """Why it does not apply to a case (None: it applies to every case). A trial that looped
    fails the scorers that apply to its case and leaves the others n/a."""
    cases: Cases = "all"
    reads_answers: bool = False
    """It judges the agent's answers in words, so it is measured against real answers labelled
    by hand (`ops-eval readers`); the gate warns while that measurement misses its target or
    has lapsed."""

    def other_kind(self, case: Case) -> str | None:
        """Why this scorer never reads `case` -- a scenario, a scripted case -- or None."""
        if self.cases == "scripted" and case.scenario is not None:
            return SCENARIO_SCORED_ON_GOAL
        if self.cases == "scenarios" and case.scenario is None:
            return "not a conversation scenario: it has no goal"
        return None

    def not_applicable(self, case: Case, plan: Plan) -> str | None:
        """Why this scorer does not apply to `case`, or None when it does."""
        other = self.other_kind(case)
        if other is not None:
            return other
        return self.applies(case, plan) if self.applies is not None else None


_REGISTRY: dict[str, Scorer] = {}
_LOADED: list[bool] = []  # non-empty once every module of the package was imported


def scorer(
    *,
    name: str,
    needs: tuple[Need, ...],
    passes_when: str,
    gate: Gate = "all",
    uses_judge: bool = False,
    applies: Applies | None = None,
    cases: Cases = "all",
    reads_answers: bool = False,
) -> Callable[[ScoreFn], ScoreFn]:
    """Register a scorer function under `name`; `applies` says why it does not apply to a case
    (the scorer says n/a with the same reason when it scores one)."""

    def register(func: ScoreFn) -> ScoreFn:
        if name in _REGISTRY:
            raise TypeError(f"scorer {name!r} declared twice")
        _REGISTRY[name] = Scorer(
            name,
            func,
            frozenset(needs),
            passes_when,
            gate,
            uses_judge,
            applies,
            cases,
            reads_answers,
        )
        return func

    return register


def registered() -> Mapping[str, Scorer]:
    """Every scorer of this package, by name (its modules load on first call): the mean-gated
    ones first -- ADK's own gate metric -- then the others, each group in name order."""
    if not _LOADED:
        package = __name__.rsplit(".", 1)[0]
        for module in pkgutil.iter_modules(importlib.import_module(package).__path__):
            if module.name != "base" and not module.name.startswith("_"):  # helpers
                importlib.import_module(f"{package}.{module.name}")
        _LOADED.append(True)
    order = sorted(_REGISTRY.items(), key=lambda item: (item[1].gate != "mean", item[0]))
    return MappingProxyType(dict(order))
