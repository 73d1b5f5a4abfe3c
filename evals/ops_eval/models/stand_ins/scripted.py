"""Scripted models: deterministic stand-ins for an LLM, for tests and benchmarks only.

`ScriptedLlm` answers each model call with the next step of a fixed script (text and/or tool
calls). It records every request, so a test can assert how many model calls a turn took.
`OracleLlm` follows each eval case's expected trajectory. Test infrastructure, never a product
default.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Callable, Sequence
from typing import TYPE_CHECKING, Any

from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.genai import types
from pydantic import PrivateAttr

from ...core.calls import ToolCall

if TYPE_CHECKING:
    from ...core.evalset import Case

Step = str | ToolCall | Sequence[str | ToolCall] | Callable[[LlmRequest], "Step"]


class ScriptExhausted(RuntimeError):
    """The agent asked the scripted model for more steps than the script holds."""


def to_parts(step: str | ToolCall | Sequence[str | ToolCall]) -> list[types.Part]:
    """Model response parts: text, and tool calls (ids are ADK's to assign)."""
    items = [step] if isinstance(step, str | ToolCall) else list(step)
    parts = []
    for item in items:
        if isinstance(item, ToolCall):
            parts.append(
                types.Part(
                    function_call=types.FunctionCall(
                        name=item.name, args=dict(item.args), id=item.id
                    )
                )
            )
        else:
            parts.append(types.Part(text=item))
    return parts


class ScriptedLlm(BaseLlm):
    """Replays `script`, one step per model call. A callable step decides from the request."""

    model: str = "scripted"
    script: list[Any] = []
    _cursor: int = PrivateAttr(default=0)
    _requests: list[LlmRequest] = PrivateAttr(default_factory=list)

    @property
    def requests(self) -> list[LlmRequest]:
        return self._requests

    @property
    def calls(self) -> int:
        return len(self._requests)

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        self._requests.append(llm_request)
        if self._cursor >= len(self.script):
            raise ScriptExhausted(f"script has {len(self.script)} steps; call {self.calls} asked")
        step = self.script[self._cursor]
        self._cursor += 1
        while callable(step) and not isinstance(step, ToolCall):
            step = step(llm_request)
        yield LlmResponse(
            content=types.Content(role="model", parts=to_parts(step)),
            usage_metadata=types.GenerateContentResponseUsageMetadata(
                prompt_token_count=0, candidates_token_count=0, total_token_count=0
            ),
        )


class OracleLlm(BaseLlm):
    """Follows each eval case's expected trajectory exactly: for the user turn it recognises by
    its prompt, it makes the expected calls one by one, then answers the reference text. It
    proves the harness's plumbing end to end (and benchmarks it): a run scored against the cases
    it was built from passes by construction."""

    model: str = "oracle"
    turns: dict[str, tuple[list[ToolCall], str]] = {}

    @classmethod
    def from_cases(cls, cases: Sequence[Case]) -> OracleLlm:
        turns = {
            t.prompt: ([ToolCall(c.name, dict(c.args)) for c in t.calls], t.reference)
            for case in cases
            for t in case.turns
        }
        return cls(turns=turns)

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        contents = list(llm_request.contents or [])
        starts = [
            i for i, c in enumerate(contents)
            if c.role == "user" and any(p.text for p in c.parts or [])
        ]  # fmt: skip
        prompt = "".join(p.text or "" for p in contents[starts[-1]].parts) if starts else ""
        calls, reference = self.turns.get(prompt.strip(), ([], "I do not know this request."))
        made = sum(
            1 for c in contents[starts[-1] + 1 if starts else 0 :]
            for p in c.parts or [] if p.function_call
        )  # fmt: skip
        step: Any = calls[made] if made < len(calls) else reference
        yield LlmResponse(
            content=types.Content(role="model", parts=to_parts(step)),
            usage_metadata=types.GenerateContentResponseUsageMetadata(
                prompt_token_count=0, candidates_token_count=0, total_token_count=0
            ),
        )
