"""The answer models a `pydantic` response check may name (`response_checks.PydanticCheck`).

An eval set names a model, never an import path: a name can only reach a model declared here,
and the declaration is each agent's answer schema -- the `output_schema` its agent module gives
ADK -- so the check and the agent cannot disagree about what a valid answer is (a test builds
every agent and holds its `output_schema` to `ANSWER_SCHEMAS`). An agent that answers in free
text has none. Importing a schema module is cheap (pydantic and the seed's enums), so the
validator can look names up without importing ADK.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from pydantic import BaseModel

from triage_report.schema import TriageReport

from .agents import AgentName

ANSWER_SCHEMAS: Mapping[AgentName, type[BaseModel]] = MappingProxyType(
    {"triage_report": TriageReport}
)
"""Agent -> the model its final answer validates as (its ADK `output_schema`)."""

ANSWER_MODELS: Mapping[str, type[BaseModel]] = MappingProxyType(
    {model.__name__: model for model in ANSWER_SCHEMAS.values()}
)
"""The names a `pydantic` check may use: each answer schema by its class name."""
