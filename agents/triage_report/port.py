"""The triage agent as the evaluation harness sees it (`agentport.AgentPort`): the ops copilot's
read tools, seed and workspace, no write at all, and a structured answer (`TriageReport`)."""

from __future__ import annotations

from dataclasses import replace

from ops_copilot.port import PORT as OPS

from .definition import tool_specs
from .schema import TriageReport

PORT = replace(
    OPS,
    name="triage_report",
    instruction_at="triage_report.definition:INSTRUCTION",
    tools=tool_specs,
    build="triage_report.agent:build_agent",
    answer_schema=TriageReport,
    # (report, seed) -> (field, why) for each disagreement of a reference report with the seed
    extras={**OPS.extras, "reference_problems": "triage_report.schema:reference_problems"},
)
