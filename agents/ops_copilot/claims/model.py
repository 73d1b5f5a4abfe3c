"""What a claim is, and the vocabulary claims are made of (from the seed and the negatives)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, get_args

from ops_copilot.seed.loading import (
    ENTITY_KINDS,
    EntityKind,
    IncidentStatus,
    Seed,
    ServiceStatus,
    Severity,
)


class Negatives(Protocol):
    """The deliberate negatives of an eval set (the harness's `core.negatives.Negatives`)."""

    def of(self, kind: EntityKind) -> frozenset[str]: ...


ANSWER = ""  # the entity of claims about the answer as a whole (approval, root cause, runbook)
ONE_VALUE = {"status", "severity", "owner", "root cause", "approval", "exists", "service"}


@dataclass(frozen=True)
class Claim:
    entity: str
    attribute: str
    value: str
    negated: bool = False

    def show(self) -> str:
        if self.attribute == "exists":
            return f"{self.entity} {'does not exist' if self.negated else 'exists'}"
        subject = f"{self.entity} {self.attribute}" if self.entity else self.attribute
        return f"{subject} {'not ' if self.negated else ''}{self.value}"

    def key(self) -> tuple[str, str]:
        return self.entity, self.attribute


@dataclass(frozen=True)
class Vocabulary:
    """What can be claimed about, from the seed and the declared negatives."""

    services: frozenset[str]
    runbooks: frozenset[str]
    skills: frozenset[str]
    teams: frozenset[str]
    negatives: frozenset[str]  # normalised ids of every kind
    service_statuses: tuple[str, ...] = get_args(ServiceStatus)
    incident_statuses: tuple[str, ...] = get_args(IncidentStatus)
    severities: tuple[str, ...] = get_args(Severity)

    @classmethod
    def of(cls, seed: Seed, negatives: Negatives | None = None) -> Vocabulary:
        """The seed's entities, plus the declared negatives as entities of their kind."""

        def missing(kind: EntityKind) -> frozenset[str]:
            return negatives.of(kind) if negatives is not None else frozenset()

        return cls(
            services=frozenset(seed.services) | missing("service"),
            runbooks=frozenset(seed.runbooks) | missing("runbook"),
            skills=frozenset(seed.skill_dirs) | missing("skill"),
            teams=frozenset(s.team for s in seed.services.values()),
            negatives=frozenset().union(*(missing(k) for k in ENTITY_KINDS)),
        )


_OF_SEED: dict[Path, Vocabulary] = {}


def seed_vocabulary(seed: Seed) -> Vocabulary:
    """The seed's vocabulary without negatives, once per seed folder (a seed is immutable): what
    the answer guard and the red team read answers with."""
    if seed.root not in _OF_SEED:
        _OF_SEED[seed.root] = Vocabulary.of(seed)
    return _OF_SEED[seed.root]
