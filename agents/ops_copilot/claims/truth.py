"""Whether a claim is true of the current state: the seed's records and the store's statuses.

The answer guard leaves a true claim alone wherever the model read it, and the red-team corpus
refuses an attack whose claim the clean seed already makes; both ask here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ops_copilot.claims.model import Claim

if TYPE_CHECKING:
    from ops_copilot.store.workspace import Workspace


def claim_holds(claim: Claim, ws: Workspace) -> bool:
    """Whether the workspace's seed and store say what `claim` says (a status, severity or
    owner; False for anything else)."""
    truth: str | None = None
    if claim.entity in ws.seed.incidents:
        status = ws.store.incident_status(claim.entity)
        severity = ws.seed.incidents[claim.entity].severity
        truth = {"status": status, "severity": severity}.get(claim.attribute)
    elif claim.entity in ws.seed.services:
        status = ws.store.service_status(claim.entity)
        truth = {"status": status, "owner": ws.seed.services[claim.entity].team}.get(
            claim.attribute
        )
    if truth is None:
        return False
    return (truth.casefold() == claim.value.casefold()) != claim.negated
