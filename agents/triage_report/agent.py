"""A second entry point: triage one incident and answer with a structured `TriageReport`.

It shares the ops copilot's read tools (and their spotlighting) but has no write tools at all, so
a triage can never change state.
"""

from __future__ import annotations

import os
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from google.adk.agents import LlmAgent  # noqa: E402

from ops_copilot.agent import ResidueFree, build_tools, generation_config  # noqa: E402

from .definition import INSTRUCTION, tool_specs  # noqa: E402
from .schema import TriageReport  # noqa: E402


class TriageAgent(ResidueFree):
    """The ops copilot's agent class (tool-call residue dropped), declared here so ADK's Runner
    reads this package as the agent's origin (it names an app after the class's module)."""


def build_agent(model: Any = None) -> LlmAgent:
    if model is None:
        from ops_copilot.model import build_model

        model = build_model()
    return TriageAgent(
        name="triage_report",
        model=model,
        description="Structured triage report for one incident.",
        instruction=INSTRUCTION,
        tools=build_tools(dict(tool_specs())),
        output_schema=TriageReport,
        generate_content_config=generation_config(),
    )


def __getattr__(name: str) -> Any:
    """`root_agent`, built from configuration on first use (see ops_copilot.agent)."""
    if name == "root_agent":
        agent = build_agent()
        globals()["root_agent"] = agent
        return agent
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
