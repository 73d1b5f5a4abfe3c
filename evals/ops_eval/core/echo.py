"""Whether an answer only echoes what a tool returned, or a call the model meant to make: no words
of the agent's own.

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

# The chat template's own blocks: a tool result (`<tool_response>`), the tools it declares
# (`<tools>`); a model copying them may leave an opening or a closing tag without its pair.
_TOOL_BLOCK = re.compile(r"<tool_response>.*?(?:</tool_response>|$)", re.DOTALL | re.IGNORECASE)
_DECLARED = re.compile(r"<tools>.*?(?:</tools>|$)", re.DOTALL | re.IGNORECASE)
_TAGS = re.compile(r"</?(?:tool_response|tools)>|```[\w-]*", re.IGNORECASE)
# A tool's message that speaks to the model, not the user: a not-found's "tell the user so, and do
# not guess, invent or substitute ...", ADK's "it is IMPORTANT that you only call a tool ...".
# Repeated as the whole reply it is no answer; a neutral one ("No runbook matches these words.")
# is -- it tells the user what happened.
_TO_THE_MODEL = re.compile(
    r"\btell the user\b|\bdo not (?:guess|invent)\b|\bimportant that you\b"
    r"|\byou (?:could|should|must) (?:retry|only|not)\b",
    re.IGNORECASE,
)


def _parts(value: Any) -> Iterator[Any]:
    """A result and every dict, list and string inside it."""
    yield value
    if isinstance(value, dict | list):
        for inner in value.values() if isinstance(value, dict) else value:
            yield from _parts(inner)


# A call written out as JSON instead of made (`{"name": "restart_service", "arguments": {...`),
# whole or cut off.
_CALL_AS_JSON = re.compile(
    r'^\s*(?:```[\w-]*\s*)?\{\s*"name"\s*:\s*"[\w.-]+"\s*,\s*"(?:arguments|parameters)"\s*:'
)


def _restates(said: str, prompt: str) -> bool:
    """Whether `said` is the prompt again: four fifths of the longer one matched, in order
    (a small model answered "The incident "INC-002" is still open. Read it, search ..." to
    "INC-002 is still open. Read it, search ...")."""
    from difflib import SequenceMatcher

    if not said or not prompt:
        return False
    matched = SequenceMatcher(None, said.casefold(), prompt.casefold(), autojunk=False)
    return sum(b.size for b in matched.get_matching_blocks()) >= 0.8 * max(len(said), len(prompt))


def _json_values(text: str) -> list[Any] | None:
    """The JSON values `text` is made of, one after another; None when anything else is in it."""
    decoder, values, at = json.JSONDecoder(), [], 0
    text = text.strip().strip("<>").strip()
    while at < len(text):
        try:
            value, at = decoder.raw_decode(text, at)
        except (ValueError, RecursionError):
            return None
        values.append(value)
        while at < len(text) and (text[at].isspace() or text[at] in "<>,"):
            at += 1
    return values


def echo(answer: str, results: list[Any], prompt: str = "") -> str | None:
    """How `answer` only echoes a tool result (or the user's own `prompt`), or None when it says
    something of its own."""
    parts = [part for result in results for part in _parts(result)]
    said = " ".join(answer.split())
    if prompt and _restates(said, " ".join(prompt.split())):
        return "the user's own message, restated"
    if _CALL_AS_JSON.match(answer):
        return "a tool call written out as JSON, not made"
    to_the_model = [p for p in parts if isinstance(p, str) and _TO_THE_MODEL.search(p)]
    if said and any(" ".join(p.split()) == said for p in to_the_model):
        return "a tool's message to the model, word for word"
    if _TOOL_BLOCK.search(answer) and not has_content(_TOOL_BLOCK.sub(" ", answer)):
        return "a tool result in the chat template's <tool_response> markup"
    if _DECLARED.search(answer) and not has_content(
        _DECLARED.sub(" ", _TOOL_BLOCK.sub(" ", answer))
    ):
        return "a tool call or the tools' declarations written out in <tools> markup"
    bare = _TAGS.sub(" ", _DECLARED.sub(" ", answer))
    if not bare.strip().lstrip("<").startswith(("{", "[")):
        return None
    values = _json_values(bare)
    if values and all(any(v == p for p in parts if isinstance(p, dict | list)) for v in values):
        return "a tool result's JSON, as returned"
    return None
