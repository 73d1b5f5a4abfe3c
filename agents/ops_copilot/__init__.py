"""Ops Copilot: an ADK incident-response agent over a fixed seed, with guarded writes.

Importing a submodule (seed, tools, registry, store) stays cheap; the agent itself -- and with it
ADK's agent classes and LiteLLM -- loads only when `agent` or `root_agent` is first asked for, as
`adk run`, `adk web` and `adk eval` do.
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
