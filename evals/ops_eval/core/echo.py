"""Whether an answer only echoes what a tool returned: no words of the agent's own.

A small model's habit (Qwen2.5-Coder-1.5B answered with `<tool_response>{"error": "This tool
call is rejected."}</tool_response>`, with a not-found JSON, with the raw skill list). Such a
reply holds the facts -- they are the tool's -- but says nothing to the user: `complete` fails
it, and `facts` does not take the tool's words for the agent's.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from .calls import has_content

_TOOL_BLOCK = re.compile(r"<tool_response>.*?(?:</tool_response>|$)", re.DOTALL | re.IGNORECASE)
_FENCE = re.compile(r"^\s*```[\w-]*\s*\n?(.*?)\n?\s*```\s*$", re.DOTALL)


def _parts(value: Any) -> Iterator[Any]:
    """A result and every dict or list inside it."""
    if isinstance(value, dict | list):
        yield value
        for inner in value.values() if isinstance(value, dict) else value:
            yield from _parts(inner)


def echo(answer: str, results: list[Any]) -> str | None:
    """How `answer` only echoes a tool result, or None when it says something of its own."""
    if _TOOL_BLOCK.search(answer) and not has_content(_TOOL_BLOCK.sub(" ", answer)):
        return "a tool result in the chat template's <tool_response> markup"
    bare = _FENCE.sub(r"\1", answer).strip()
    if not bare.startswith(("{", "[")):
        return None
    try:
        said = json.loads(bare)
    except (ValueError, RecursionError):
        return None
    if any(said == part for result in results for part in _parts(result)):
        return "a tool result's JSON, as returned"
    return None
