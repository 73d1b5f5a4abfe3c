"""Triage report agent (structured `TriageReport` output); the agent loads on first use.

Holds: what the agent is without building it, its instruction and read-only tools
(`definition`), its structured answer (`schema`), the ADK agent itself (`agent`), and the agent
as the evaluation harness sees it (`port`).
"""

from __future__ import annotations

import importlib
from typing import Any


def __getattr__(name: str) -> Any:
    if name == "agent":
        return importlib.import_module(f"{__name__}.agent")
    if name == "root_agent":
        return importlib.import_module(f"{__name__}.agent").root_agent
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
