"""Ops Copilot: an ADK incident-response agent over a fixed seed, with guarded writes.

Importing a submodule (seed, tools, registry, store) stays cheap; the agent itself -- and with it
ADK's agent classes and LiteLLM -- loads only when `agent`, `app` or `root_agent` is first asked
for, as `adk run`, `adk web` and `adk eval` do.
"""

from __future__ import annotations

import importlib
from typing import Any


def __getattr__(name: str) -> Any:
    if name == "agent":
        return importlib.import_module(f"{__name__}.agent")
    if name in ("root_agent", "app"):  # ADK's loader takes `app` (the guarded agent) first
        return getattr(importlib.import_module(f"{__name__}.agent"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
