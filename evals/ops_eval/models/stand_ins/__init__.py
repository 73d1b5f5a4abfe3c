"""Deterministic stand-ins for a model: scripted and oracle (`scripted`), saboteur (`saboteur`),
the red team's obedient and cautious attackers (`attacker`, `cautious`), record (`--record`) and
replay (`--model replay:FILE`) (`replay`), and a chooser that hands the harness one given model
(`fixed`). The red team and replay are product features built on them; none is a model the
agent is evaluated as.

Each name loads its module on first use: a run replaying a recording needs `ReplayLlm` only,
not the attackers (whose spotlighting tables take a while to build).

May import: `base`, `core`, and the rest of `models`.
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
