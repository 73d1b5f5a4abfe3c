"""The deliberate negatives (`evals/negatives.yaml`): ids per entity kind that must not exist in
the seed, so a case about an unknown incident or service stays about one. Read by the validator,
held by the plan, used by the `facts` scorer to tell an absence from a miss."""

from __future__ import annotations

from ..agents.ops_world import EntityKind, normalise
from ..base.strict import Strict


class Negatives(Strict):
    """evals/negatives.yaml: ids per entity kind that must not exist in the seed."""

    incident: list[str] = []
    service: list[str] = []
    runbook: list[str] = []
    skill: list[str] = []

    def of(self, kind: EntityKind) -> frozenset[str]:
        """The declared ids of one kind, normalised as the tools normalise ids."""
        cache = self.__dict__.setdefault("_of", {})
        if kind not in cache:
            cache[kind] = frozenset(normalise(kind, v) for v in getattr(self, kind, ()))
        return cache[kind]
