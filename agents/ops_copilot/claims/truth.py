"""Whether a claim is true of the current state: the seed's records and the store's statuses.

The answer guard leaves a true claim alone wherever the model read it, and the red-team corpus
refuses an attack whose claim the clean seed already makes; both ask here. The harness's
validator asks for the true value itself (`true_value`), to say what a reference answer should
have said.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ops_copilot.claims.model import Claim

if TYPE_CHECKING:
    from ops_copilot.store.workspace import Workspace

HELD = ("status", "severity", "owner")
"""The attributes the state holds a value of, for an incident or a service."""


def true_value(claim: Claim, ws: Workspace) -> str | None:
    """What the workspace says of the claim's entity and attribute: an incident's status (the
    store's) or severity, a service's status (the store's) or owning team; for `exists`, "yes"
    when the entity is an incident, service, runbook or skill of the seed, else "no". None when
    the state holds no such value (an entity it does not have, an attribute it does not hold)."""
    entity, seed = claim.entity, ws.seed
    if claim.attribute == "exists":
        kinds = (seed.incidents, seed.services, seed.runbooks, seed.skill_dirs)
        return "yes" if any(entity in kind for kind in kinds) else "no"
    if entity in seed.incidents:
        if claim.attribute == "status":
            return ws.store.incident_status(entity)
        return seed.incidents[entity].severity if claim.attribute == "severity" else None
    if entity in seed.services:
        if claim.attribute == "status":
            return ws.store.service_status(entity)
        return seed.services[entity].team if claim.attribute == "owner" else None
    return None


def claim_holds(claim: Claim, ws: Workspace) -> bool:
    """Whether the workspace's seed and store say what `claim` says (a status, severity or
    owner; False for anything else)."""
    truth = true_value(claim, ws) if claim.attribute in HELD else None
    if truth is None:
        return False
    return (truth.casefold() == claim.value.casefold()) != claim.negated
