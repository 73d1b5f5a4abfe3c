"""The structured triage report: the answer schema of the `triage_report` agent and of the
reference responses in `evals/triage-report.evalset.json`."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from ops_copilot.seed.loading import Severity


class TriageReport(BaseModel):
    """What an on-call engineer needs first about one incident."""

    model_config = ConfigDict(extra="forbid")

    incident_id: str = Field(pattern=r"^INC-\d{3}$", description="The incident id, e.g. INC-002.")
    service: str = Field(min_length=1, description="The affected service, as the tools name it.")
    severity: Severity = Field(description="SEV1 (worst) to SEV3, as the incident record says.")
    suspected_cause: str = Field(min_length=1, description="The most likely cause, in a sentence.")
    evidence: list[str] = Field(
        min_length=1, description="Facts from tool results (log lines, timeline entries)."
    )
    runbook: str = Field(min_length=1, description="The runbook slug to follow.")
    next_steps: list[str] = Field(min_length=1, description="Concrete next actions, in order.")
