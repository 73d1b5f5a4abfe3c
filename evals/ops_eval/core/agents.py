"""The agents an eval case can target, by name: their tools and instruction without building
them (cheap, for the validator), and how to build them with a given model (for runners)."""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any, Literal

from ops_copilot.registry import ToolSpec

AgentName = Literal["ops_copilot", "triage_report"]
DEFAULT_AGENT: AgentName = "ops_copilot"


@dataclass(frozen=True)
class AgentEntry:
    name: AgentName
    definition_module: str  # holds INSTRUCTION and tool_specs() without importing ADK agents
    agent_module: str  # holds build_agent(model)

    def tool_specs(self) -> Mapping[str, ToolSpec]:
        return _module(self.definition_module).tool_specs()

    @property
    def instruction(self) -> str:
        return _module(self.definition_module).INSTRUCTION

    def build(self, model: Any) -> Any:
        return importlib.import_module(self.agent_module).build_agent(model)


@cache
def _module(name: str) -> Any:
    """The module, looked up once: the validator asks for an agent's tools for every call of
    every case."""
    return importlib.import_module(name)


AGENTS: Mapping[str, AgentEntry] = {
    "ops_copilot": AgentEntry("ops_copilot", "ops_copilot.definition", "ops_copilot.agent"),
    "triage_report": AgentEntry("triage_report", "triage_report.definition", "triage_report.agent"),
}
