"""What the ops copilot is, without building it: its instruction and its declared tools."""

from __future__ import annotations

from .prompt import INSTRUCTION
from .registry import tool_specs

__all__ = ["INSTRUCTION", "tool_specs"]
