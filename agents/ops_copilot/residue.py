"""Tool-call residue: the content-free text a model server leaves beside a function call.

A model that writes its call as a fenced JSON block (Qwen2.5 through llama.cpp, say) gets the
call lifted out by the server's parser, and the fence is left behind as the message's text:
```` ```json\\n\\n``` ```` beside the function call. ADK keeps that text in the history, and on
the next request the model copies its own previous message: its answer after the tool result is
the empty fence again (measured on Qwen2.5-Coder-1.5B: every final answer of the ops set).

So the agent drops such a part from the model's response before ADK records it, for every
model route. It is not an output guard -- nothing the model said is judged or hidden, and the
red team's guard-off modes leave it on: the agent class itself applies it,
whatever `after_model_callback` is set to (`agent.ResidueFree`).

*Content-free* is defined once, here: whitespace, empty code fences (with or without a
language), and markup that holds nothing -- a tag with no attributes and no text inside
(`<tools></tools>`, `<br/>`), a chat template's special token (`<|im_end|>`). A part holding a
URL, an attribute, or a single letter, digit or symbol outside that markup is never
content-free. The harness's `complete` scorer starts from the same definition.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from google.adk.models.llm_response import LlmResponse

# A fence's language only counts as one when it ends its line: ```` ```INC-002``` ```` is an answer.
_EMPTY_FENCE = re.compile(r"(```|~~~)(?:[\w+.-]*[ \t]*\n)?\s*\1")
# A tag is a lowercase name (so `<INC-002>` is an id, not markup) with no attributes.
_BARE_TAG = re.compile(r"</?[a-z][a-z0-9_-]*\s*/?>|<\|[\w|]*\|>")


def content_free(text: str) -> bool:
    """Whether `text` says nothing at all: whitespace, empty code fences and empty markup."""
    rest = _BARE_TAG.sub(" ", _EMPTY_FENCE.sub(" ", text))
    return not rest.strip()


def drop_residue(llm_response: LlmResponse) -> LlmResponse | None:
    """The response without its content-free text parts when it also calls a function, else
    None (nothing to drop). A response with no function call is an answer, left as it is."""
    content = llm_response.content
    parts = list((content.parts if content else None) or [])
    if not any(p.function_call for p in parts):
        return None
    kept = [p for p in parts if p.function_call or p.thought or not _is_residue(p)]
    if len(kept) == len(parts):
        return None
    assert content is not None
    return llm_response.model_copy(update={"content": content.model_copy(update={"parts": kept})})


def _is_residue(part: Any) -> bool:
    fields = part.model_dump(exclude_none=True, exclude_defaults=True)
    return set(fields) <= {"text"} and content_free(part.text or "")
