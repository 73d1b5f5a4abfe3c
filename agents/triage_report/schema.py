"""The structured triage report: the answer schema of the `triage_report` agent and of the
reference responses in `evals/triage-report.evalset.json`, and how a reference report is held
to the seed (`reference_problems`)."""

from __future__ import annotations

from collections.abc import Iterator

from pydantic import BaseModel, ConfigDict, Field

from ops_copilot.seed.loading import Seed, Severity


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


def reference_problems(report: TriageReport, seed: Seed) -> Iterator[tuple[str, str]]:
    """(field, why) for each way a reference report disagrees with the seed: the harness's
    validator asks this of every triage case's reference (`PORT.extras["reference_problems"]`),
    so a reference that names the wrong service or severity fails before any model runs."""
    incident = seed.incidents.get(report.incident_id)
    if incident is None:
        yield "incident_id", f"TriageReport names {report.incident_id}, which is not in the seed"
        return
    for field in ("service", "severity", "runbook"):
        if getattr(report, field) != getattr(incident, field):
            yield (
                field,
                (
                    f"TriageReport {field} {getattr(report, field)!r} disagrees with the seed's "
                    f"{getattr(incident, field)!r} for {incident.id}"
                ),
            )
