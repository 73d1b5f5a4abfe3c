"""A deterministic failing agent: the oracle, sabotaged on chosen prompts."""

from __future__ import annotations

from .scripted import OracleLlm


class Saboteur(OracleLlm):
    """The oracle, except on chosen prompts: skip the first expected call (every time, or on
    every other attempt: a flaky agent), or raise as a model server that hung up. For tests of
    what a run and its scorers make of a failing agent; never a product model."""

    skip_first_call_on: set[str] = set()
    flaky_on: set[str] = set()
    crash_on: set[str] = set()
    seen: dict[str, int] = {}

    async def generate_content_async(self, llm_request, stream=False):
        prompt = next(
            "".join(p.text or "" for p in c.parts)
            for c in reversed(llm_request.contents)
            if c.role == "user" and any(p.text for p in c.parts or [])
        )
        if prompt in self.crash_on:
            raise ConnectionError("model server hung up")
        calls, reference = self.turns[prompt]
        fresh = not any(p.function_call for c in llm_request.contents for p in c.parts or [])
        if fresh:
            self.seen[prompt] = self.seen.get(prompt, 0) + 1
        if prompt in self.skip_first_call_on or (
            prompt in self.flaky_on and self.seen[prompt] % 2 == 1
        ):
            self.turns = {**self.turns, prompt: (calls[1:], reference)}
            try:
                async for r in super().generate_content_async(llm_request, stream):
                    yield r
            finally:
                self.turns = {**self.turns, prompt: (calls, reference)}
            return
        async for r in super().generate_content_async(llm_request, stream):
            yield r
