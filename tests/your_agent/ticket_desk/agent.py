"""The desk's ADK agent, built for a given model."""

from __future__ import annotations

from typing import Any

from google.adk.agents import LlmAgent
from google.adk.tools import FunctionTool

from .prompt import INSTRUCTION
from .tools import TOOLS


def build_agent(model: Any) -> LlmAgent:
    return LlmAgent(
        name="ticket_desk",
        model=model,
        instruction=INSTRUCTION,
        tools=[
            FunctionTool(spec.func, require_confirmation=spec.always_confirm)
            for spec in TOOLS.tools.values()
        ],
    )
