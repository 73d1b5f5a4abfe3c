"""Deterministic stand-ins for a model: scripted, oracle, saboteur, obedient attacker, record
and replay, and a chooser that hands the harness one of them. Test infrastructure, never a
product model.

Each name loads its module on first use: a run replaying a recording needs `ReplayLlm` only,
not the attackers (whose spotlighting tables take a while to build).
"""

from __future__ import annotations

import importlib
from typing import Any

_WHERE = {
    "ObedientAttacker": "attacker",
    "fixed_model": "fixed",
    "RecordingLlm": "replay",
    "ReplayLlm": "replay",
    "ReplayMiss": "replay",
    "OracleLlm": "scripted",
    "Saboteur": "saboteur",
    "ScriptedLlm": "scripted",
    "ScriptExhausted": "scripted",
    "to_parts": "scripted",
}

__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
    globals()[name] = value
    return value
