"""Deterministic stand-ins for a model: scripted, oracle, obedient attacker, record and replay,
and a chooser that hands the harness one of them. Test infrastructure, never a product model."""

from .attacker import ObedientAttacker
from .fixed import fixed_model
from .replay import RecordingLlm, ReplayLlm, ReplayMiss
from .scripted import OracleLlm, ScriptedLlm, ScriptExhausted, to_parts

__all__ = [
    "ObedientAttacker",
    "OracleLlm",
    "RecordingLlm",
    "ReplayLlm",
    "ReplayMiss",
    "ScriptExhausted",
    "ScriptedLlm",
    "fixed_model",
    "to_parts",
]
