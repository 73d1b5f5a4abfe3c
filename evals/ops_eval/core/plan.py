"""What a run plays and what its scorers compare against: the cases, ADK's parse of them, the
criteria, the deliberate negatives, the seed. `validation.plan.load_plan` makes one from an eval
set the validator passes; everything above the validator takes it as given."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..agents.ops_world import Seed
from .contracts import Contracts, SetContracts
from .criteria import Criteria
from .evalset import Case, EvalSetFile
from .negatives import Negatives


@dataclass
class Plan:
    """What a run plays and what its scorers compare against."""

    evalset: EvalSetFile
    cases: list[Case]
    adk_cases: dict[str, Any]  # eval id -> ADK's EvalCase (its conversation is the reference)
    criteria: Criteria
    negatives: Negatives  # the deliberate negatives, per entity kind
    seed: Seed
    warnings: list[str] = field(default_factory=list)  # the validator's (a context fallback)
    set_contracts: SetContracts | None = None  # the set's `contracts.yaml`, if any
    judge: Any = None
    """The run's judge for `llm_judge` checks (a `judging.client.Judge`, or a
    `core.judge_port.NoJudge` saying why there is none); None when the run opened none."""

    def declares(self, kind: str) -> bool:
        """Whether any case to run declares a response check of `kind`."""
        from .case_checks import checks_of

        return any(checks_of(case, kind) for case in self.cases)

    def seed_for(self, agent: str) -> Any:
        """The seed `agent` plays over (`agents.seed_for`): the run's, or the agent's own."""
        from ..agents import seed_for

        return seed_for(agent, self.seed)

    def contracts(self, case: Case) -> Contracts:
        """The case's contracts over the set's."""
        return case.meta.contracts.merged_over(self.set_contracts)
