"""What every rule may read: the seed, the declared negatives, the leak index, the claims
reader's vocabulary, one gold workspace for replaying expected calls, and where a problem is
(file, case, line). A `Context` lives for one validation: what it builds, it builds once."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from pydantic import ValidationError

from ..agents import DEFAULT_AGENT, default_agent, port, seed_for
from ..agents.ops_world import Seed
from ..core.direct import DirectContext
from ..core.evalset import Case, CaseMeta, Category, EvalSetFile
from ..core.negatives import Negatives
from .leaks import LeakIndex
from .problems import Problem


@dataclass
class Context:
    seed: Seed
    negatives: Negatives
    negatives_file: str
    seen_ids: dict[str, str] = field(default_factory=dict)  # eval id -> file that has it
    built: dict[str, Any] = field(default_factory=dict)
    """What a rule builds once per validation, under its module's name (`reference_rules`)."""
    _replies: dict[str, dict[str, Any]] = field(default_factory=dict)

    @cached_property
    def leaks(self) -> LeakIndex:
        return LeakIndex(self.seed)

    @cached_property
    def vocabulary(self) -> Any:
        """The claims reader's vocabulary (`ops_guards.Vocabulary`) of the seed and the declared
        negatives -- the `facts` scorer's -- built once per validation."""
        from ..agents.ops_guards import Vocabulary

        return Vocabulary.of(self.seed, self.negatives)

    _golds: dict[str, DirectContext] = field(default_factory=dict)

    @property
    def gold(self) -> DirectContext:
        """The default agent's fresh state for gold replays and write pre-checks."""
        return self.gold_for(default_agent())

    def gold_for(self, agent: str) -> DirectContext:
        """One fresh state per agent for gold replays (reads change nothing)."""
        if agent not in self._golds:
            states = port(agent).state
            assert states is not None, f"agent {agent} declares no state"
            fresh = states.fresh(seed_for(agent, self.seed))
            self._golds[agent] = DirectContext(workspace=fresh, agent=agent)
        return self._golds[agent]

    def ids(self, kind: str, agent: str | None = None) -> frozenset[str]:
        """The ids of one entity kind in the seed `agent` (else the default one) plays over."""
        agent = agent or default_agent()
        if agent == DEFAULT_AGENT or port(agent).load_seed is port(DEFAULT_AGENT).load_seed:
            return self.seed.ids(kind)
        return frozenset(port(agent).entities(seed_for(agent, self.seed)).get(kind, ()))

    def replay(self, name: str, args: dict[str, Any], agent: str | None = None) -> dict[str, Any]:
        """The real tool's answer to an expected read on a fresh state; identical calls are
        answered once."""
        agent = agent or default_agent()
        key = json.dumps([agent, name, args], sort_keys=True, default=str)
        if key not in self._replies:
            try:
                self._replies[key] = self.gold_for(agent).call(name, **args)
            except Exception as exc:  # a tool crash on gold input is exactly what to report
                self._replies[key] = {"status": "crash", "message": f"{type(exc).__name__}: {exc}"}
        return self._replies[key]

    def close(self) -> None:
        for gold in self._golds.values():
            gold.close()


@dataclass(frozen=True)
class Site:
    """One case of one eval set file: where its problems are reported."""

    evalset: EvalSetFile
    case: Case

    @cached_property
    def _assumed(self) -> tuple[CaseMeta, Category | None]:
        return assumed(self.case)

    @property
    def meta(self) -> CaseMeta:
        """The case's meta, or what the rules assume of an invalid one (`meta_rules`)."""
        return self._assumed[0]

    @property
    def category(self) -> Category | None:
        """The case's category; None when its meta gives no valid one (category rules skip)."""
        return self._assumed[1]

    def problem(self, message: str, **where: Any) -> Problem:
        return Problem(
            self.evalset.display,
            message,
            case=self.case.eval_id,
            line=self.evalset.case_lines.get(self.case.eval_id),
            **where,
        )


_PLACEHOLDER: Category = "happy"  # stands in for an unknown category; never read as one


def assumed(case: Case) -> tuple[CaseMeta, Category | None]:
    """(meta the rules read, its category or None when unknown)."""
    if case.meta is not None:
        return case.meta, case.meta.category
    raw = case.raw_meta if isinstance(case.raw_meta, dict) else {}
    kept = {k: v for k, v in raw.items() if k in CaseMeta.model_fields}
    try:
        CaseMeta.model_validate(kept)
    except ValidationError as exc:
        for bad in {e["loc"][0] for e in exc.errors() if e["loc"]}:
            kept.pop(bad, None)
    category = kept.get("category")
    try:
        return CaseMeta.model_validate({**kept, "category": category or _PLACEHOLDER}), category
    except ValidationError:  # fields valid alone but not together: assume only the defaults
        return CaseMeta(category=_PLACEHOLDER), None
