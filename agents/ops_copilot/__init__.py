"""Ops Copilot: an ADK incident-response agent over a fixed seed, with guarded writes.

Holds:
- `agent`: the ADK agent (`build_agent`, `root_agent`, `app`); `prompt`: its instruction;
  `definition`: its tools' tables without building it; `confirmations`: the App plugin that
  keeps an unreadable approval answer from crashing a run; `residue`: content-free text beside
  a call, dropped.
- `port`: the agent as the evaluation harness sees it (`agentport.AgentPort`).
- `model`: the model route (`OPS_AGENT_MODEL` and friends); `settings`: every `OPS_*` variable.
- `tools/` (declarations, reads, writes, approval), `guards/` (spotlighting, links, the answer
  guard, provenance), `store/` (the state store, its schema and audit chain, the write
  policy), `seed/` (loading the seed, its records' shapes), `claims/` (reading what an answer
  asserts about the seed).

Importing a submodule (seed, tools, store) stays cheap; the agent itself -- and with it
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
